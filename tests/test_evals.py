"""run_evals on the fake backend."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import (
    ContextRecallOptions,
    FakeBackend,
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
        FakeBackend(), ContextRecallOptions(context_extractor=lambda _i, out: out)
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
    summary = result.summaries["context-recall"]
    assert result.total_items == 4
    assert (summary.scored, summary.failed) == (3, 1)
    assert summary.by_status[Status.NO_GROUND_TRUTH] == 1
    assert result.scores["context-recall"] == pytest.approx((1 + 0 + 0) / 3)
    assert [i.index for i in seen] == [0, 1, 2, 3]
    assert seen[2].target_error and "retriever timed out" in seen[2].target_error
    assert seen[2].results["context-recall"].status is Status.ERROR
    assert seen[0].output == [DOCS["paris"]]


def test_mean_is_none_when_nothing_scored(scorer) -> None:  # type: ignore[no-untyped-def]
    result = run_evals([{"input": "broken", "groundTruth": "x"}], [scorer], retrieve)
    assert result.scores == {"context-recall": None}


def test_more_items_than_a_window(scorer) -> None:  # type: ignore[no-untyped-def]
    data: list[dict[str, Any]] = [
        {"input": "paris", "groundTruth": "Paris is the capital of France."}
    ] * 40
    result = run_evals(data, [scorer], retrieve)
    assert result.summaries["context-recall"].scored == 40
    assert result.scores["context-recall"] == 1


def test_concurrency_must_be_positive(scorer) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="concurrency"):
        run_evals([], [scorer], retrieve, concurrency=0)
