"""A scorer's results added up: the mean score, and counts by status and verdict."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fractions import Fraction
from itertools import islice
from typing import TypeVar

from pydantic import Field

from ..frozen import Frozen
from ..scorer.results import ScoreResult, Status

T = TypeVar("T")


def windows(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of `size` items (the last may be shorter), read lazily."""
    it = iter(items)
    while window := list(islice(it, size)):
        yield window


class Summary(Frozen):
    """Aggregate of one scorer's results. Failed items are counted, never averaged in."""

    mean: float | None = Field(
        description="Mean score of the items that scored (those without a ground truth score "
        "0, as in the reference); None if none did"
    )
    mean_with_ground_truth: float | None = Field(
        description="Mean score of the items that had a ground truth; None if none did"
    )
    items: int
    scored: int
    failed: int
    by_status: dict[Status, int]
    judged: int = Field(description="Verdicts given (claims for recall)")
    positive: int = Field(description="Positive verdicts (supported claims for recall)")


class Tally:
    """Adds results up one at a time, so a long run keeps counts, not results, in memory."""

    def __init__(self) -> None:
        # An exact sum: the mean does not depend on the order results arrive in.
        self._total = Fraction(0)
        self._scored = 0
        self._total_with_truth = Fraction(0)
        self._by_status = dict.fromkeys(Status, 0)
        self._judged = 0
        self._positive = 0

    def add(self, result: ScoreResult) -> None:
        self._by_status[result.status] += 1
        if result.score is not None:
            self._total += Fraction(result.score)
            self._scored += 1
            if result.status is not Status.NO_GROUND_TRUTH:
                self._total_with_truth += Fraction(result.score)
        judgments = result.judgments()
        self._judged += len(judgments)
        self._positive += sum(j.positive for j in judgments)

    def summary(self) -> Summary:
        scored = self._scored
        with_truth = scored - self._by_status[Status.NO_GROUND_TRUTH]
        return Summary(
            mean=float(self._total / scored) if scored else None,
            mean_with_ground_truth=float(self._total_with_truth / with_truth)
            if with_truth
            else None,
            items=sum(self._by_status.values()),
            scored=scored,
            failed=self._by_status[Status.ERROR],
            by_status=dict(self._by_status),
            judged=self._judged,
            positive=self._positive,
        )
