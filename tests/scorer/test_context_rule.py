"""One context rule for `scorer.run`, `run_evals` and the command line, and one status for a
run with no context to judge."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import (
    ContextPrecisionOptions,
    ContextRecallOptions,
    FakeEngine,
    Status,
    create_context_precision_scorer,
    create_context_recall_scorer,
    run_evals,
)
from offline_recall.cli import main
from offline_recall.scorer.inputs import ContextWarning

RECALL = "context-recall-scorer"
PRECISION = "context-precision-scorer"
ROW = {
    "input": "Where is the Eiffel Tower?",
    "groundTruth": "The Eiffel Tower is in Paris.",
    "context": ["The Eiffel Tower is in Paris, France."],
}
STATIC = ["Bananas are yellow fruit."]


class Counting(FakeEngine):
    """The fake engine, counting the prompts it is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def generate_json(self, prompts, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += len(prompts)
        return super().generate_json(prompts, *args, **kwargs)

    def answer_probabilities(self, prompts, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += len(prompts)
        return super().answer_probabilities(prompts, *args, **kwargs)


def test_run_and_run_evals_score_a_rows_own_context_alike() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=STATIC))
    with pytest.warns(ContextWarning, match="static `context` is not used") as said:
        alone = scorer.run(ROW)
    assert said[0].filename == __file__  # the warning points at the caller's line
    with pytest.warns(ContextWarning, match="static `context` is not used"):
        evals = run_evals([ROW], [scorer], target=lambda question: "Paris.")
    assert alone.score == 1.0
    assert evals.scores[RECALL] == alone.score


def test_without_its_own_context_a_run_uses_the_static_one_silently() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=STATIC))
    row = {k: v for k, v in ROW.items() if k != "context"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evals = run_evals([row], [scorer], target=lambda question: "Paris.")
        alone = scorer.run(row)
    assert evals.scores[RECALL] == alone.score == 0.0


def test_an_extractor_set_aside_for_a_rows_own_context_is_named() -> None:
    options = ContextRecallOptions(context_extractor=lambda _i, output: [output])
    scorer = create_context_recall_scorer(FakeEngine(), options)
    with pytest.warns(ContextWarning, match="`context_extractor` is not called"):
        result = run_evals([ROW], [scorer], target=lambda question: "Bananas.")
    assert result.scores[RECALL] == 1.0


@pytest.mark.parametrize("key", ["retrieved_contexts", "contexts"])
def test_run_evals_reads_a_context_under_ragas_names(key: str) -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=STATIC))
    item = {"input": "q", "groundTruth": "Cherries are red.", key: ["Cherries are red."]}
    with pytest.warns(ContextWarning, match="static `context` is not used"):
        result = run_evals([item], [scorer], target=lambda question: "x")
    assert result.scores[RECALL] == 1.0  # scored against its own chunks, not STATIC


def test_scorer_run_reads_a_context_under_ragas_names() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=STATIC))
    with pytest.warns(ContextWarning):
        result = scorer.run(
            {"groundTruth": "Cherries are red.", "retrieved_contexts": ["Cherries are red."]}
        )
    assert (result.status, result.score) == (Status.OK, 1.0)  # its own chunks, not STATIC


@pytest.mark.parametrize("context", [[], ["", "  \n"]])
def test_no_context_is_one_status_without_a_model_call(context: list[str]) -> None:
    engine = Counting()
    run = {**ROW, "context": context}
    recall = create_context_recall_scorer(engine, ContextRecallOptions(context=STATIC))
    precision = create_context_precision_scorer(engine, ContextPrecisionOptions(context=STATIC))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        results = [recall.run(run), precision.run(run)]
    for result in results:
        assert (result.status, result.score) == (Status.NO_CONTEXT, 0.0)
        assert result.reason == "The score is 0 because the run has no context chunk to judge."
    assert engine.calls == 0


def test_an_extractor_that_finds_nothing_gives_no_context() -> None:
    engine = Counting()
    options = ContextRecallOptions(context_extractor=lambda _i, _o: [])
    result = create_context_recall_scorer(engine, options).run({"groundTruth": "A fact."})
    assert result.status is Status.NO_CONTEXT and engine.calls == 0


def test_the_summary_and_the_report_count_no_context_alike(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [ROW, {**ROW, "context": []}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    scorers = f"{RECALL},{PRECISION}"
    args = ["score", str(data), "--backend", "fake", "--scorer", scorers, "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(1 for line in lines if "no context" in line and line.rstrip(" │").endswith("1")) == 2
    assert not any("no chunks" in line or "no claims" in line for line in lines)
    html = tmp_path / "report.html"
    done = CliRunner().invoke(main, ["report", str(out), "--out", str(html)])
    assert done.exit_code == 0, done.output
    page = html.read_text()
    card = '<div class="label">No context</div><div class="value">1</div>'
    assert page.count(card) == 2
    assert "No chunks" not in page and "No claims" not in page
