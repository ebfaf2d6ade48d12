"""Context precision: the reference's construction rules and ranking score, on the fake engine,
and beside recall everywhere a user meets scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import (
    ConfigurationError,
    ContextPrecisionOptions,
    ContextRecallOptions,
    FakeEngine,
    Status,
    create_context_precision_scorer,
    create_context_recall_scorer,
    read_results,
    run_evals,
)
from offline_recall.cli import main
from offline_recall.engines import Failed
from offline_recall.judging.profile import threshold_profile
from offline_recall.metrics.precision import PrecisionResult, Target, average_precision
from offline_recall.scorer.results import ScorerInput

from ..conftest import EXAMPLE, RECALL

PRECISION = "context-precision-scorer"
QUESTION = "What are the benefits of exercise?"
ANSWER = "Regular exercise improves cardiovascular health and mental wellbeing."
CHUNKS = [
    "Exercise strengthens the heart and improves blood circulation.",
    "A balanced diet is important for health.",
    "Regular physical activity reduces stress and anxiety.",
    "Exercise equipment can be expensive.",
]


def scripted(relevant: list[bool], chunks: list[str] = CHUNKS) -> FakeEngine:
    """A fake engine answering yes (0.9) for the chunks marked relevant, no (0.1) otherwise."""
    key = f"{QUESTION}\n{ANSWER}"
    return FakeEngine(
        p_yes={(c, key): 0.9 if r else 0.1 for c, r in zip(chunks, relevant, strict=True)}
    )


def scorer(engine: FakeEngine, chunks: list[str] = CHUNKS, scale: float | None = 1) -> Any:
    return create_context_precision_scorer(
        engine, ContextPrecisionOptions(context=chunks, scale=scale), profile=threshold_profile(0.5)
    )


RUN = {"input": QUESTION, "groundTruth": ANSWER}


def test_construction_needs_a_context_source_and_refuses_an_empty_list(fake: FakeEngine) -> None:
    with pytest.raises(ConfigurationError, match="context precision needs"):
        create_context_precision_scorer(fake, ContextPrecisionOptions())
    with pytest.raises(ConfigurationError, match="empty"):
        ContextPrecisionOptions(context=[])


def test_the_scorer_carries_the_reference_id_and_name(fake: FakeEngine) -> None:
    s = scorer(fake)
    assert (s.id, s.name) == ("context-precision-scorer", "Context Precision Scorer")


@pytest.mark.parametrize(
    ("relevant", "expected"),
    [
        ([True, False, True, False], 0.83),  # (1/1 + 2/3) / 2 = 0.8333
        ([True, True, False, False], 1.0),  # relevant chunks first
        ([False, False, True, True], 0.42),  # relevant chunks last: (1/3 + 2/4) / 2
        ([False, False, False, False], 0.0),  # none relevant
    ],
)
def test_score_is_the_average_precision_of_the_ranking(
    relevant: list[bool], expected: float
) -> None:
    result = scorer(scripted(relevant)).run(RUN)
    assert result.status is Status.OK
    assert result.score == expected
    assert [v.relevant for v in result.verdicts] == relevant
    assert [v.chunk_index for v in result.verdicts] == [0, 1, 2, 3]


@pytest.mark.parametrize(("relevant", "expected"), [(True, 1.0), (False, 0.0)])
def test_one_chunk(relevant: bool, expected: float) -> None:
    result = scorer(scripted([relevant], CHUNKS[:1]), CHUNKS[:1]).run(RUN)
    assert result.score == expected


@pytest.mark.parametrize(("scale", "expected"), [(10, 8.33), (0, 0.83), (None, 0.83)])
def test_scale(scale: float | None, expected: float) -> None:
    assert scorer(scripted([True, False, True, False]), scale=scale).run(RUN).score == expected


def test_average_precision_by_hand() -> None:
    assert average_precision([]) == 0.0
    assert average_precision([False, True]) == 0.5
    assert average_precision([True, False, False, True]) == pytest.approx((1 + 2 / 4) / 2)


def test_the_reason_names_relevant_chunks_and_the_junk_ranked_ahead_of_them() -> None:
    reason = scorer(scripted([False, True, False, True])).run(RUN).reason
    assert reason.startswith("The score is 0.5 because 2 of 4 retrieved chunks are relevant:")
    assert "chunk 1 (rank 2), chunk 3 (rank 4)" in reason
    assert "not relevant: chunk 0 (rank 1), chunk 2 (rank 3)." in reason


def test_judged_against_the_ground_truth_else_the_output() -> None:
    engine = FakeEngine()
    s = scorer(engine, CHUNKS[:1])
    s.run({"input": QUESTION, "output": "Something else.", "groundTruth": ANSWER})
    s.run({"input": QUESTION, "output": "The output answer."})
    asked = [fields[-1] for call in engine.answer_calls for fields in call]
    assert asked == [f"{QUESTION}\n{ANSWER}", f"{QUESTION}\nThe output answer."]


def test_agent_messages_give_the_question_and_the_answer() -> None:
    engine = FakeEngine()
    message = {"id": "1", "createdAt": "2025-01-01"}
    run = {
        "input": {
            "inputMessages": [{**message, "role": "user", "content": QUESTION}],
            "rememberedMessages": [],
            "systemMessages": [],
            "taggedSystemMessages": {},
        },
        "output": [
            {
                **message,
                "role": "assistant",
                "content": {"parts": [{"type": "text", "text": ANSWER}]},
            }
        ],
    }
    scorer(engine, CHUNKS[:1]).run(run)
    assert engine.answer_calls[0][0][-1] == f"{QUESTION}\n{ANSWER}"


def test_no_answer_scores_zero_without_a_model_call() -> None:
    engine = FakeEngine()
    result = scorer(engine).run({"input": QUESTION})
    assert (result.status, result.score) == (Status.NO_GROUND_TRUTH, 0.0)
    assert engine.answer_calls == []


def test_blank_chunks_keep_their_rank_and_are_not_relevant() -> None:
    chunks = ["   ", CHUNKS[0]]
    engine = scripted([True], CHUNKS[:1])
    result = scorer(engine, chunks).run(RUN)
    assert [(v.chunk_index, v.relevant) for v in result.verdicts] == [(0, False), (1, True)]
    assert result.score == 0.5
    assert len(engine.answer_calls[0]) == 1  # the blank chunk was not sent


def test_a_failed_verdict_fails_only_its_run() -> None:
    class OneFails(FakeEngine):
        def answer_probabilities(self, prompts, answers, done=None):  # type: ignore[no-untyped-def]
            found = super().answer_probabilities(prompts, answers, done=done)
            return [
                Failed("timed out") if "poison" in p.fields[-1] else f
                for p, f in zip(prompts, found, strict=True)
            ]

    s = scorer(OneFails(), CHUNKS[:1])
    ok, bad = s.run_many([RUN, {"input": QUESTION, "groundTruth": "poison"}])
    assert ok.status is Status.OK
    assert (bad.status, bad.error, bad.score) == (Status.ERROR, "timed out", None)


def test_the_chunks_of_one_question_share_its_head() -> None:
    prompts = scorer(FakeEngine()).prompts
    first, second = (prompts.judge_prompt(c, Target(QUESTION, ANSWER)) for c in CHUNKS[:2])
    assert first.shared == second.shared and QUESTION in first.shared and ANSWER in first.shared
    assert first.messages[-1]["content"].startswith(first.shared)
    assert CHUNKS[0] not in first.shared


def test_a_chunk_is_judged_against_a_typed_question_and_answer() -> None:
    """The judged unit names its question and answer; nothing is joined into one string and
    split again, and a classifier reads the pair the prompt says it asks about."""
    s = scorer(FakeEngine())
    item = s.prepare(ScorerInput(input=QUESTION, ground_truth=ANSWER))
    assert not isinstance(item, PrecisionResult)
    unit = s.units(item)[0]
    assert (unit.target.question, unit.target.answer) == (QUESTION, ANSWER)
    prompt = s.prompts.judge_prompt(unit.piece, unit.target)
    assert prompt.pair == (CHUNKS[0], f"{QUESTION}\n{ANSWER}")
    unasked = s.prompts.judge_prompt(unit.piece, Target(None, ANSWER))
    assert "(none given)" in unasked.messages[-1]["content"]


def test_run_evals_returns_both_means_under_the_scorers_ids() -> None:
    engine = FakeEngine()
    extractor = ContextRecallOptions(context_extractor=lambda _i, out: out)
    both = [
        create_context_recall_scorer(engine, extractor),
        create_context_precision_scorer(
            engine, ContextPrecisionOptions(context_extractor=lambda _i, out: out)
        ),
    ]
    data = [{"input": "q", "groundTruth": "Paris is in France."}]
    result = run_evals(data, both, lambda _q: ["Rome is in Italy.", "Paris is in France."])
    assert result.scores == {RECALL: 1.0, PRECISION: 0.5}


def _score(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "score",
            str(EXAMPLE),
            "--backend",
            "fake",
            "--out",
            str(out),
            "--scorer",
            f"{RECALL},{PRECISION}",
            *args,
        ],
    )
    return result.exit_code, result.output, out


def test_both_scorers_in_one_cli_pass_one_store_one_manifest(tmp_path: Path) -> None:
    code, output, out = _score(tmp_path)
    assert code == 0, output
    assert "Context Recall Scorer" in output and "Context Precision Scorer" in output
    assert "mean precision" in output and "chunks relevant" in output
    records = read_results(out)
    assert all(set(r.results) == {RECALL, PRECISION} for r in records)
    manifest = json.loads(out.with_name("r.jsonl.manifest.json").read_text())
    assert [s["id"] for s in manifest["spec"]["scorers"]] == [RECALL, PRECISION]
    assert set(manifest["prompt_files_sha256"]) == {RECALL, PRECISION}


def test_fail_under_takes_a_gate_per_scorer(tmp_path: Path) -> None:
    code, output, _ = _score(tmp_path, "--fail-under", "0.5")
    assert code == 1 and "several scorers run; give SCORER=0.5" in output
    code, output, _ = _score(tmp_path, "--fail-under", f"{PRECISION}=0.99")
    assert code == 1 and "mean precision" in output and f"({PRECISION})" in output
    code, output, _ = _score(
        tmp_path, "--fail-under", f"{PRECISION}=0.1", "--fail-under", f"{RECALL}=0.1"
    )
    assert code == 0, output


def test_parquet_report_compare_and_verify_handle_both(tmp_path: Path) -> None:
    code, output, _ = _score(tmp_path, "--out", str(tmp_path / "r.parquet"))
    assert code == 0, output
    parquet = tmp_path / "r.parquet"
    records = read_results(parquet)
    assert records[0].results[PRECISION].verdicts  # type: ignore[attr-defined]
    page = tmp_path / "report.html"
    assert CliRunner().invoke(main, ["report", str(parquet), "--out", str(page)]).exit_code == 0
    html = page.read_text()
    assert "Context recall and context precision report" in html and "Mean precision" in html
    compared = CliRunner().invoke(main, ["compare", str(parquet), str(parquet)])
    assert compared.exit_code == 0, compared.output
    assert "mean precision" in compared.output and "mean recall" in compared.output
    verified = CliRunner().invoke(main, ["verify", str(parquet)])
    assert verified.exit_code == 0, verified.output


JUNK = "Cats are popular pets, and coffee is a popular drink."


@pytest.mark.model
@pytest.mark.parametrize(
    ("chunks", "expected"),
    [([ANSWER, JUNK], 1.0), ([JUNK, ANSWER], 0.5), ([JUNK], 0.0), ([ANSWER], 1.0)],
    ids=["relevant-first", "relevant-last", "none-relevant", "one-chunk"],
)
def test_ranking_on_the_embedded_model(embedded: Any, chunks: list[str], expected: float) -> None:
    """The shipped precision profile on the real model: a chunk stating the answer is relevant,
    junk is not, and the score follows where the relevant chunk is ranked."""
    s = create_context_precision_scorer(embedded, ContextPrecisionOptions(context=chunks))
    result = s.run(RUN)
    assert result.status is Status.OK, result.error
    assert result.score == expected
    assert s.setup.judge_profile.scorer == PRECISION and not s.setup.judge_profile.is_plain


@pytest.mark.model
def test_the_model_asked_about_each_chunk_on_the_embedded_model(embedded: Any) -> None:
    """Under the plain rule the model's own P(yes) decides, one forward pass per chunk after
    the question's shared head."""
    s = create_context_precision_scorer(
        embedded, ContextPrecisionOptions(context=[ANSWER, JUNK]), profile=threshold_profile(0.5)
    )
    result = s.run(RUN)
    assert result.status is Status.OK
    assert all(v.model_p_yes == v.probability for v in result.verdicts)
    assert all(0.0 <= v.probability <= 1.0 for v in result.verdicts)


def test_calibrate_fits_the_precision_judge_that_later_runs_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    rows = [
        {"question": QUESTION, "answer": ANSWER, "chunk": chunk, "label": label}
        for chunk, label in [
            (CHUNKS[0], 1),
            (CHUNKS[2], 1),
            (ANSWER, 1),
            (CHUNKS[1], 0),
            (CHUNKS[3], 0),
            (JUNK, 0),
        ]
    ]
    data = tmp_path / "relevance.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(
        main,
        [
            "calibrate",
            "--data",
            str(data),
            "--backend",
            "fake",
            "--scorer",
            PRECISION,
            "--folds",
            "2",
            "--force",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "chunks / pairs" in result.output
    stored = list((tmp_path / "cache" / "profiles").glob(f"*{PRECISION}*.judge.json"))
    assert len(stored) == 1
    s = create_context_precision_scorer(
        FakeEngine(prompt_version="v2"), ContextPrecisionOptions(context=CHUNKS)
    )
    assert s.setup.judge_profile.scorer == PRECISION
    assert s.setup.judge_profile.rows == len(rows)


def test_a_bad_row_is_an_error_row_for_both_scorers(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(EXAMPLE.read_text().splitlines()[0] + "\n{oops\n")
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "score",
            str(data),
            "--backend",
            "fake",
            "--out",
            str(out),
            "--scorer",
            f"{RECALL},{PRECISION}",
        ],
    )
    assert result.exit_code == 0, result.output
    good, bad = read_results(out)
    assert {r.status for r in good.results.values()} == {Status.OK}
    assert {r.status for r in bad.results.values()} == {Status.ERROR}
    assert all("not valid JSON" in (r.error or "") for r in bad.results.values())
