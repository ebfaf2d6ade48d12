"""Faithfulness: the output's claims judged against the context, as Mastra's
`createFaithfulnessScorer` scores them; and the one builder the three scorers share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from offline_recall import FakeEngine, Status, create_faithfulness_scorer, run_evals
from offline_recall.engines import Engine
from offline_recall.errors import ConfigurationError
from offline_recall.metrics.faithfulness import (
    ID,
    FaithfulnessOptions,
    FaithfulnessResult,
    FaithfulnessScorer,
)
from offline_recall.metrics.precision import ID as PRECISION
from offline_recall.metrics.precision import ContextPrecisionScorer
from offline_recall.metrics.recall import ID as RECALL
from offline_recall.runs.resolve import resolve_spec
from offline_recall.runs.score import resolve, session
from offline_recall.scorer import Scorer
from offline_recall.scorer.construction import build_scorer
from offline_recall.scorer.registry import SCORERS

ROOT = Path(__file__).resolve().parents[2]
COMPANY = [
    "The company was founded in 1995 by John Smith.",
    "It has 500 employees and is headquartered in London.",
    "The company specializes in software development.",
]
QUESTION = "What can you tell me about the company?"


def scorer(engine: Engine, **options: Any) -> FaithfulnessScorer:
    options.setdefault("context", COMPANY)
    return create_faithfulness_scorer(engine, FaithfulnessOptions(**options))


def test_every_claim_of_the_output_supported_scores_scale() -> None:
    output = "The company was founded in 1995 by John Smith. It has 500 employees."
    result = scorer(FakeEngine(), scale=10).run({"input": QUESTION, "output": output})
    assert isinstance(result, FaithfulnessResult)
    assert (result.score, result.status) == (10.0, Status.OK)
    assert [v.chunk_index for v in result.verdicts] == [0, 1]
    assert result.reason.startswith("The score is 10 because 2 of 2 claims in the output")


def test_a_claim_the_context_contradicts_counts_against_the_output() -> None:
    output = (
        "The company was founded in 1995 by John Smith. Their headquarters is in Paris. "
        "The company specializes in software development. It employs 1000 staff members now."
    )
    result = scorer(FakeEngine()).run({"input": QUESTION, "output": output})
    assert result.score == 0.5
    assert [v.supported for v in result.verdicts] == [True, False, True, False]
    assert 'Not supported: "Their headquarters is in Paris."' in result.reason


def test_the_claims_come_from_the_output_not_the_ground_truth() -> None:
    fake = FakeEngine()
    run = {
        "output": [{"role": "assistant", "content": "It has 500 employees."}],
        "groundTruth": "Paris is in France.",
    }
    result = scorer(fake).run(run)
    assert result.claims == ["It has 500 employees."]
    assert fake.json_calls == [] or all("Paris" not in t for c in fake.json_calls for t in c)


def test_an_empty_output_scores_0_without_a_model_call() -> None:
    """Mastra extracts no claims from an empty output and scores 0."""
    fake = FakeEngine()
    outputs: list[object] = ["", "   ", None, []]
    for output in outputs:
        result = scorer(fake).run({"input": QUESTION, "output": output})
        assert (result.score, result.status) == (0.0, Status.NO_CLAIMS)
    assert fake.json_calls == [] and fake.answer_calls == []


def test_no_context_scores_0_without_a_model_call() -> None:
    """Mastra's judge finds every claim unverifiable without context: 0."""
    fake = FakeEngine()
    result = scorer(fake).run({"output": "The company was founded in 1995.", "context": [" "]})
    assert (result.score, result.status) == (0.0, Status.NO_CONTEXT)
    assert fake.json_calls == [] and fake.answer_calls == []


def test_run_evals_scores_the_targets_output_with_all_three_scorers(fake: FakeEngine) -> None:
    from offline_recall import (
        ContextPrecisionOptions,
        ContextRecallOptions,
        create_context_precision_scorer,
        create_context_recall_scorer,
    )

    scorers: list[Scorer] = [
        create_context_recall_scorer(fake, ContextRecallOptions(context=COMPANY)),
        create_context_precision_scorer(fake, ContextPrecisionOptions(context=COMPANY)),
        scorer(fake),
    ]
    data = [{"input": QUESTION, "groundTruth": "The company was founded in 1995."}]
    found = run_evals(data, scorers, lambda _: "It has 500 employees. It was sold to Oracle.")
    assert found.scores == {RECALL: 1.0, PRECISION: 1.0, ID: 0.5}


def test_faithfulness_is_registered_and_judges_with_recalls_profiles() -> None:
    assert ID in SCORERS and SCORERS[ID].measure == "faithfulness"
    spec = resolve_spec(scorers=(RECALL, ID), engine="fake")
    recall, faithfulness = spec.scorer(RECALL).setup, spec.scorer(ID).setup
    assert faithfulness.prompt_version == recall.prompt_version
    assert faithfulness.judge_profile == recall.judge_profile


def _own_judge_prompt(tmp_path: Path) -> Path:
    """The bundled model pinned again with a verifier's own judge prompt."""
    text = (ROOT / "models" / "smollm2-135m-instruct.toml").read_text(encoding="utf-8")
    prompt = json.dumps(str(ROOT / "tests" / "fixtures" / "verifier.judge.toml"))
    text = text.replace(
        "context_window = 8192\n", f"context_window = 8192\njudge_prompt = {prompt}\n"
    )
    path = tmp_path / "own-judge.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_model_with_its_own_judge_prompt_scores_precision_in_both_build_paths(
    tmp_path: Path,
) -> None:
    """Precision asks its own relevance question, from the API and from a run spec alike;
    the claim scorers ask the model's own question."""
    from offline_recall import ContextPrecisionOptions, create_context_precision_scorer

    model = str(_own_judge_prompt(tmp_path))
    resolved = resolve((RECALL, PRECISION, ID), model=model, backend="fake")
    built = session(resolved)
    precision = built.scorers[PRECISION]
    assert isinstance(precision, ContextPrecisionScorer)
    assert precision.prompts.version == "v1"
    for claims in (built.scorers[RECALL], built.scorers[ID]):
        assert "Is the claim consistent" in claims.prompts.judge.user  # type: ignore[attr-defined]
    row = {"groundTruth": "It has 500 employees.", "context": COMPANY}
    from_spec = precision.run(row)
    from_api = create_context_precision_scorer(
        model, ContextPrecisionOptions(context=COMPANY), engine="fake"
    ).run(row)
    assert from_spec.status == Status.OK and from_spec == from_api


def test_a_separate_judge_is_refused_alike_for_a_scorer_that_takes_none() -> None:
    from offline_recall.scorer.registry import scorer_kind

    with pytest.raises(ConfigurationError, match="cannot be judged by a separate judge"):
        build_scorer(
            scorer_kind(PRECISION), FakeEngine(), None, _setup(PRECISION), judge=FakeEngine()
        )
    with pytest.raises(ConfigurationError, match="cannot be judged by a separate judge"):
        resolve_spec(engine="fake", scorers=(PRECISION,), judge_model="smollm2-135m-instruct")


def _setup(scorer_id: str) -> Any:
    return resolve_spec(engine="fake", scorers=(scorer_id,)).scorer(scorer_id).setup


@pytest.mark.model
def test_faithfulness_on_the_embedded_model(embedded: Engine) -> None:
    """One output, one supported sentence and one the context does not hold."""
    result = scorer(embedded).run(
        {"output": "The company was founded in 1995. The company is based in Tokyo."}
    )
    assert result.status == Status.OK
    by_claim = {v.claim: v.supported for v in result.verdicts}
    assert any("1995" in c and ok for c, ok in by_claim.items()), by_claim
    assert not any("Tokyo" in c and ok for c, ok in by_claim.items()), by_claim


def test_calibrate_fits_faithfulness_through_context_recall(tmp_path: Path) -> None:
    """Faithfulness has no profile of its own: `calibrate` offers context recall's."""
    from click.testing import CliRunner

    from offline_recall.cli import main

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"claim": "a", "context": "a", "label": 1}\n', encoding="utf-8")
    args = ["calibrate", "--backend", "fake", "--data", str(rows), "--scorer", ID]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "context-recall-scorer" in result.output


def test_score_reads_each_rows_output_by_its_convention(tmp_path: Path) -> None:
    """The command line scores the answer a row holds: Mastra's `output`, RAGAS's `response`,
    or a mapped column; a row without one is `no_claims`, never a score of the wrong text."""
    from click.testing import CliRunner

    from offline_recall.cli import main

    rows = [
        {"id": "mastra", "input": QUESTION, "output": "It has 500 employees.", "context": COMPANY},
        {"id": "none", "input": QUESTION, "context": COMPANY},
        {"id": "ragas", "user_input": QUESTION, "response": "It was sold to Oracle.",
         "retrieved_contexts": COMPANY},
    ]  # fmt: skip
    data, out = tmp_path / "data.jsonl", tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["score", str(data), "--backend", "fake", "--scorer", ID, "--out", str(out)]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    found = {r["id"]: r["results"][ID] for r in map(json.loads, out.read_text().splitlines())}
    assert (found["mastra"]["score"], found["mastra"]["status"]) == (1.0, "ok")
    assert (found["ragas"]["score"], found["ragas"]["status"]) == (0.0, "ok")
    assert found["none"]["status"] == "no_claims"
    # Its summary lists the statuses it gives: faithfulness never needs a ground truth.
    assert "no claims" in done.output and "no ground truth" not in done.output
    mapped = tmp_path / "mapped.jsonl"
    mapped.write_text(json.dumps({"answer": "It has 500 employees.", "context": COMPANY}) + "\n")
    args = ["score", str(mapped), "--backend", "fake", "--scorer", ID, "--map", "output=answer"]
    done = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "m.jsonl")])
    assert done.exit_code == 0, done.output
    (row,) = map(json.loads, (tmp_path / "m.jsonl").read_text().splitlines())
    assert (row["results"][ID]["score"], row["results"][ID]["status"]) == (1.0, "ok")


def test_an_answer_is_read_whole_questions_and_greetings_set_aside_with_their_reason() -> None:
    output = (
        "Hello! Yes, the company was founded in 1995 by John Smith. Is there anything else? Thanks!"
    )
    result = scorer(FakeEngine()).run({"input": QUESTION, "output": output})
    assert isinstance(result, FaithfulnessResult)
    assert result.claims == ["The company was founded in 1995 by John Smith."]
    assert [(n.text, n.reason) for n in result.not_claims] == [
        ("Hello!", "a greeting or courtesy"),
        ("Is there anything else?", "a question"),
        ("Thanks!", "a greeting or courtesy"),
    ]
    assert result.score == 1.0
    assert result.reason.endswith("Not claims: 'Hello!' (a greeting or courtesy); "
                                  "'Is there anything else?' (a question); 'Thanks!' "
                                  "(a greeting or courtesy).")  # fmt: skip
    assert json.loads(result.model_dump_json())["not_claims"][1]["reason"] == "a question"


def test_an_answer_without_a_statement_scores_0_and_says_why() -> None:
    result = scorer(FakeEngine()).run({"input": QUESTION, "output": "Sure! What would you like?"})
    assert (result.score, result.status) == (0.0, Status.NO_CLAIMS)
    assert "no sentence of the output makes a claim" in result.reason
    assert len(result.not_claims) == 2


def test_each_clause_of_a_compound_answer_is_judged() -> None:
    output = "It has 500 employees, and it sells cheese in Paris."
    result = scorer(FakeEngine()).run({"input": QUESTION, "output": output})
    assert result.claims == ["It has 500 employees.", "It sells cheese in Paris."]
    assert [v.supported for v in result.verdicts] == [True, False]


def test_an_ordinary_answer_records_no_not_claims_field() -> None:
    output = "The company was founded in 1995 by John Smith."
    result = scorer(FakeEngine()).run({"input": QUESTION, "output": output})
    assert "not_claims" not in json.loads(result.model_dump_json())
