"""What a report shows across items: the claims missed most often, where each item falls on
recall against precision, and the rows set apart from the histogram (no ground truth, no
context) because their 0 is not a measured one."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from ..runs.results import ItemRecord
from ..scorers.base import ScoreResult, Status

MISSED = 10
"""Claims listed as the most missed."""

APART = {
    Status.NO_GROUND_TRUTH: "no ground truth",
    Status.NO_CONTEXT: "no context",
}
"""Statuses whose 0 is given, not measured: counted beside the histogram, not in it."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Missed(_Frozen):
    """A claim judged not supported, and the items it was missed in."""

    text: str
    items: int
    lines: list[int]
    ids: list[str]
    mean_probability: float


class Point(_Frozen):
    """Items at one place of the recall-against-precision plane (scores are coarse, so many
    items share a place)."""

    x: float
    y: float
    count: int
    labels: list[str]


class Scatter(_Frozen):
    """Each item scored by both scorers, as a point: recall across, precision up."""

    x_scorer: str
    y_scorer: str
    x_measure: str
    y_measure: str
    top_x: float
    top_y: float
    points: list[Point]
    items: int


def measured(results: Sequence[ScoreResult]) -> list[float]:
    """The scores the histogram shows: every score but the given zeros of `APART`."""
    return [r.score for r in results if r.score is not None and r.status not in APART]


def set_apart(results: Sequence[ScoreResult]) -> list[tuple[str, int]]:
    """How many results of each given-zero status there are, for the bars beside the
    histogram; a status with none is left out."""
    counts = [(label, sum(r.status is s for r in results)) for s, label in APART.items()]
    return [(label, n) for label, n in counts if n]


def _label(record: ItemRecord) -> str:
    return f"line {record.line}" if record.id is None else f"{record.id} (line {record.line})"


def most_missed(records: Sequence[ItemRecord], scorer: str, limit: int = MISSED) -> list[Missed]:
    """The claims of `scorer` judged not supported in the most items, then the least likely
    first; verdicts on chunks (precision) are not claims and are left out."""
    found: dict[str, tuple[str, list[ItemRecord], list[float]]] = {}
    for record in records:
        result = record.results.get(scorer)
        if result is None:
            continue
        for j in result.judgments():
            if j.of_chunk or j.positive:
                continue
            _, where, probabilities = found.setdefault(j.key, (j.text, [], []))
            if not where or where[-1] is not record:
                where.append(record)
            probabilities.append(j.probability)
    ranked = sorted(found.values(), key=lambda v: (-len(v[1]), sum(v[2]) / len(v[2]), v[1][0].line))
    return [
        Missed(
            text=text,
            items=len(where),
            lines=[r.line for r in where],
            ids=[_label(r) for r in where],
            mean_probability=sum(probabilities) / len(probabilities),
        )
        for text, where, probabilities in ranked[:limit]
    ]


def scatter(
    records: Sequence[ItemRecord],
    x: str,
    y: str,
    measures: tuple[str, str],
    tops: tuple[float, float],
) -> Scatter:
    """Items scored by both `x` and `y` (their given zeros left out), grouped by place."""
    places: dict[tuple[float, float], list[str]] = {}
    for record in records:
        rx, ry = record.results.get(x), record.results.get(y)
        if rx is None or ry is None or rx.score is None or ry.score is None:
            continue
        if rx.status in APART or ry.status in APART:
            continue
        places.setdefault((rx.score, ry.score), []).append(_label(record))
    return Scatter(
        x_scorer=x,
        y_scorer=y,
        x_measure=measures[0],
        y_measure=measures[1],
        top_x=tops[0],
        top_y=tops[1],
        points=[
            Point(x=px, y=py, count=len(labels), labels=labels)
            for (px, py), labels in sorted(places.items())
        ],
        items=sum(len(labels) for labels in places.values()),
    )
