"""What a report shows across items: the claims missed most often, where each item falls on
recall against precision, and the rows set apart from the histogram (no ground truth, no
context) because their 0 is not a measured one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from ..runs.results import ItemRecord
from ..scorer.results import ScoreResult, Status

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


SHOWN = 20
"""Items named for one missed claim or one place of the plot; the rest are counted."""


def _label(record: ItemRecord) -> str:
    return f"line {record.line}" if record.id is None else f"{record.id} (line {record.line})"


@dataclass
class _Claim:
    """One missed claim's running count."""

    text: str
    items: int = 0
    probability: float = 0.0
    verdicts: int = 0
    last_line: int | None = None
    where: list[tuple[int, str]] = field(default_factory=list)
    """The first `SHOWN` items: line and label."""


class MissedClaims:
    """The claims of one scorer judged not supported, added up one record at a time: a count,
    a probability sum and the first `SHOWN` items of each, so a long run keeps no records."""

    def __init__(self, scorer: str) -> None:
        self.scorer = scorer
        self._found: dict[str, _Claim] = {}

    def add(self, record: ItemRecord) -> None:
        result = record.results.get(self.scorer)
        if result is None:
            return
        for j in result.judgments():
            if j.of_chunk or j.positive:
                continue
            claim = self._found.setdefault(j.key, _Claim(j.text))
            if claim.last_line != record.line:
                claim.items += 1
                claim.last_line = record.line
                if len(claim.where) < SHOWN:
                    claim.where.append((record.line, _label(record)))
            claim.probability += j.probability
            claim.verdicts += 1

    def ranked(self, limit: int = MISSED) -> list[Missed]:
        """The claims missed in the most items, then the least likely first."""
        ranked = sorted(
            self._found.values(),
            key=lambda c: (-c.items, c.probability / c.verdicts, c.where[0][0]),
        )
        return [
            Missed(
                text=c.text,
                items=c.items,
                lines=[line for line, _ in c.where],
                ids=[label for _, label in c.where],
                mean_probability=c.probability / c.verdicts,
            )
            for c in ranked[:limit]
        ]


def most_missed(records: Iterable[ItemRecord], scorer: str, limit: int = MISSED) -> list[Missed]:
    """The claims of `scorer` judged not supported in the most items, then the least likely
    first; verdicts on chunks (precision) are not claims and are left out. Each names the
    first `SHOWN` items it was missed in and counts them all."""
    missed = MissedClaims(scorer)
    for record in records:
        missed.add(record)
    return missed.ranked(limit)


@dataclass
class _Place:
    count: int = 0
    labels: list[str] = field(default_factory=list)
    """The first `SHOWN` items' labels."""


class Places:
    """Items scored by both `x` and `y`, grouped by place, added one record at a time."""

    def __init__(self, x: str, y: str) -> None:
        self.x, self.y = x, y
        self._places: dict[tuple[float, float], _Place] = {}

    def add(self, record: ItemRecord) -> None:
        rx, ry = record.results.get(self.x), record.results.get(self.y)
        if rx is None or ry is None or rx.score is None or ry.score is None:
            return
        if rx.status in APART or ry.status in APART:
            return
        place = self._places.setdefault((rx.score, ry.score), _Place())
        place.count += 1
        if len(place.labels) < SHOWN:
            place.labels.append(_label(record))

    def scatter(self, measures: tuple[str, str], tops: tuple[float, float]) -> Scatter:
        return Scatter(
            x_scorer=self.x,
            y_scorer=self.y,
            x_measure=measures[0],
            y_measure=measures[1],
            top_x=tops[0],
            top_y=tops[1],
            points=[
                Point(x=px, y=py, count=place.count, labels=place.labels)
                for (px, py), place in sorted(self._places.items())
            ],
            items=sum(place.count for place in self._places.values()),
        )


def scatter(
    records: Iterable[ItemRecord],
    x: str,
    y: str,
    measures: tuple[str, str],
    tops: tuple[float, float],
) -> Scatter:
    """Items scored by both `x` and `y` (their given zeros left out), grouped by place."""
    places = Places(x, y)
    for record in records:
        places.add(record)
    return places.scatter(measures, tops)
