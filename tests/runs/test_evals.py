"""run_evals on the fake engine."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import (
    ContextRecallOptions,
    FakeEngine,
    ItemResult,
    Status,
    create_context_recall_scorer,
    run_evals,
)

DOCS = {
    "paris": "Paris is the capital of France.",
    "rome": "Rome is the capital of Italy.",
}


def retrieve(question: str) -> list[str]:
    if question == "broken":
        raise TimeoutError("retriever timed out")
    return [DOCS[question]]


@pytest.fixture
def scorer():  # type: ignore[no-untyped-def]
    return create_context_recall_scorer(
        FakeEngine(), ContextRecallOptions(context_extractor=lambda _i, out: out)
    )


def test_means_counts_and_callbacks(scorer) -> None:  # type: ignore[no-untyped-def]
    data = [
        {"input": "paris", "groundTruth": "Paris is the capital of France."},
        {"input": "rome", "ground_truth": "Bananas grow on trees."},
        {"input": "broken", "groundTruth": "Anything."},
        {"input": "paris"},
    ]
    seen: list[ItemResult] = []
    result = run_evals(data, [scorer], retrieve, on_item_complete=seen.append, concurrency=2)
    summary = result.summaries["context-recall-scorer"]
    assert result.total_items == 4
    assert (summary.scored, summary.failed) == (3, 1)
    assert summary.by_status[Status.NO_GROUND_TRUTH] == 1
    assert result.scores["context-recall-scorer"] == pytest.approx((1 + 0 + 0) / 3)
    assert [i.index for i in seen] == [0, 1, 2, 3]
    assert seen[2].target_error and "retriever timed out" in seen[2].target_error
    assert seen[2].results["context-recall-scorer"].status is Status.ERROR
    assert seen[0].output == [DOCS["paris"]]


def test_mean_is_none_when_nothing_scored(scorer) -> None:  # type: ignore[no-untyped-def]
    result = run_evals([{"input": "broken", "groundTruth": "x"}], [scorer], retrieve)
    assert result.scores == {"context-recall-scorer": None}


def test_more_items_than_a_window(scorer) -> None:  # type: ignore[no-untyped-def]
    data: list[dict[str, Any]] = [
        {"input": "paris", "groundTruth": "Paris is the capital of France."}
    ] * 40
    result = run_evals(data, [scorer], retrieve)
    assert result.summaries["context-recall-scorer"].scored == 40
    assert result.scores["context-recall-scorer"] == 1


def test_concurrency_must_be_positive(scorer) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="concurrency"):
        run_evals([], [scorer], retrieve, concurrency=0)


class Crashy(FakeEngine):
    """Raises on any batch that judges a claim about poison."""

    def answer_probabilities(self, prompts, answers, done=None):  # type: ignore[no-untyped-def]
        if any("poison" in p.fields[-1].casefold() for p in prompts):
            raise RuntimeError("engine fault")
        return super().answer_probabilities(prompts, answers, done=done)


def _crashy_scorer():  # type: ignore[no-untyped-def]
    return create_context_recall_scorer(
        Crashy(), ContextRecallOptions(context_extractor=lambda _i, out: out)
    )


def test_one_item_whose_scoring_crashes_is_its_error_not_an_abort() -> None:
    result = run_evals([{"input": "paris", "groundTruth": "Poison."}], [_crashy_scorer()], retrieve)
    summary = result.summaries["context-recall-scorer"]
    assert (summary.items, summary.failed) == (1, 1)


def test_a_crash_beside_a_target_failure_is_recorded_for_each() -> None:
    seen: list[ItemResult] = []
    data = [
        {"input": "paris", "groundTruth": "Poison is here."},
        {"input": "broken", "groundTruth": "Anything."},
    ]
    run_evals(data, [_crashy_scorer()], retrieve, on_item_complete=seen.append)
    first, second = (i.results["context-recall-scorer"] for i in seen)
    assert first.status is Status.ERROR and "engine fault" in (first.error or "")
    assert second.status is Status.ERROR and "retriever timed out" in (second.error or "")


def test_a_crash_alone_in_the_last_window_is_its_error() -> None:
    data: list[dict[str, Any]] = [
        {"input": "paris", "groundTruth": "Paris is the capital of France."}
    ] * 16 + [{"input": "paris", "groundTruth": "Poison."}]
    result = run_evals(data, [_crashy_scorer()], retrieve)
    summary = result.summaries["context-recall-scorer"]
    assert (summary.scored, summary.failed) == (16, 1)
