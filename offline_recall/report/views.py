"""What a report page shows, computed from result records before the template renders it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from ..judging.disclosure import note_for_digests
from ..runs.results import ItemRecord
from ..runs.summary import Summary, Tally
from ..scorers import SCORERS
from ..scorers.base import ScoreResult, Status
from .highlight import closest_chunk, highlight_excerpt
from .insights import Missed, Scatter, measured, most_missed, scatter, set_apart
from .stats import Interval, bootstrap_mean

BINS = 10


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class ChunkView(_View):
    """A context chunk with a verdict's words highlighted."""

    index: int
    html: Markup


class VerdictView(_View):
    """One verdict, and the chunk it points at (or, for a negative one, the closest by words)."""

    text: str
    positive: bool
    probability: float
    support: ChunkView | None
    closest: ChunkView | None


class ResultView(_View):
    """One scorer's result on one row."""

    scorer: str
    measure: str
    """What the scorer measures ("recall"): each badge says whose it is."""
    score: float | None
    band: str
    status: Status
    reason: str
    error: str | None
    verdicts: list[VerdictView]


class ItemView(_View):
    """One scored row as the page shows it."""

    line: int
    id: str | None
    input: str | None
    ground_truth: str | None
    context: list[str] | None
    results: list[ResultView]

    @property
    def error(self) -> str | None:
        return next((r.error for r in self.results if r.error), None)

    @property
    def scores_attr(self) -> str:
        """Each scorer's score, space-separated ("" for none), for the page's script."""
        return " ".join("" if r.score is None else repr(r.score) for r in self.results)

    @property
    def statuses_attr(self) -> str:
        return " ".join(r.status.value for r in self.results)

    @property
    def scorers_attr(self) -> str:
        return " ".join(r.scorer for r in self.results)


class Bar(_View):
    """One histogram bin."""

    label: str
    count: int
    height: float


class ScorerView(_View):
    """One scorer over the whole run: its summary, interval and histogram."""

    id: str
    name: str
    measure: str
    unit: str
    positive: str
    summary: Summary
    interval: Interval | None
    top: float
    bars: list[Bar]
    apart: list[Bar]
    """Rows whose 0 is given, not measured (no ground truth, no context), beside the bins."""
    statuses: list[str]
    """The statuses besides ok and error the scorer's results may have."""
    prompts: list[str]
    missed: list[Missed]


class ReportView(_View):
    """The whole report page."""

    source: str
    models: list[str]
    prompts: list[str]
    libraries: list[str]
    judge_note: str | None = None
    """Said in the header when the embedded model's lexical rule decided the verdicts."""
    scorers: list[ScorerView]
    items: list[ItemView]
    statuses: list[str]
    scatter: Scatter | None = None
    """Recall against precision, when the run has both."""

    @property
    def failed(self) -> list[ItemView]:
        return [i for i in self.items if i.error is not None]

    @property
    def title(self) -> str:
        """ "Context recall report", or one naming every measure the run has."""
        return f"Context {' and '.join(s.measure for s in self.scorers) or 'score'} report"


def as_text(value: Any) -> str | None:
    """A free-form field for display: text as is, anything else as indented JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)


def band(score: float | None, top: float) -> str:
    """A colour band for a score: high, mid, low, or none when unscored."""
    if score is None:
        return "none"
    return "high" if score >= 0.75 * top else "mid" if score >= 0.25 * top else "low"


def _chunk(context: Sequence[str] | None, index: int | None, text: str) -> ChunkView | None:
    if context is None or index is None or not 0 <= index < len(context):
        return None
    return ChunkView(index=index, html=highlight_excerpt(context[index], text))


def verdict_views(
    result: ScoreResult, context: list[str] | None, ground_truth: str | None
) -> list[VerdictView]:
    """Each verdict with the chunk it points at: a claim's supporting chunk (or, when none
    supports it, the closest by shared words) with the claim's words marked; a chunk judged
    for relevance, with the ground truth's words marked."""
    views = []
    for j in result.judgments():
        if j.of_chunk:
            support, closest = _chunk(context, j.chunk_index, ground_truth or ""), None
        elif j.positive:
            support, closest = _chunk(context, j.chunk_index, j.text), None
        else:
            nearest = None if context is None else closest_chunk(context, j.text)
            support, closest = None, _chunk(context, nearest, j.text)
        views.append(
            VerdictView(
                text=j.text,
                positive=j.positive,
                probability=j.probability,
                support=support,
                closest=closest,
            )
        )
    return views


def item_view(record: ItemRecord, tops: dict[str, float]) -> ItemView:
    return ItemView(
        line=record.line,
        id=None if record.id is None else str(record.id),
        input=as_text(record.input),
        ground_truth=as_text(record.ground_truth),
        context=record.context,
        results=[
            ResultView(
                scorer=sid,
                measure=_measure(sid),
                score=r.score,
                band=band(r.score, tops[sid]),
                status=r.status,
                reason=r.reason,
                error=r.error,
                verdicts=verdict_views(r, record.context, as_text(record.ground_truth)),
            )
            for sid, r in record.results.items()
        ],
    )


def _measure(scorer_id: str) -> str:
    kind = SCORERS.get(scorer_id)
    return kind.measure if kind is not None else "score"


def histogram(
    scores: Sequence[float], top: float, bins: int = BINS, at_least: int = 1
) -> list[Bar]:
    """Counts of scores in `bins` equal bins over [0, top]; the last bin includes `top`.
    Heights are relative to the largest count, or `at_least` when that is larger."""
    import numpy as np

    counts, edges = np.histogram(np.asarray(scores, dtype=float), bins=bins, range=(0.0, top))
    most = max(int(counts.max()) if len(scores) else 0, at_least, 1)
    return [
        Bar(
            label=f"{edges[i]:.1f}\u2013{edges[i + 1]:.1f}",
            count=int(n),
            height=100 * int(n) / most,
        )
        for i, n in enumerate(counts)
    ]


def _distinct(values: Sequence[str]) -> list[str]:
    return sorted(set(values))


def scorer_view(
    scorer_id: str, results: Sequence[ScoreResult], records: Sequence[ItemRecord] = ()
) -> ScorerView:
    tally = Tally()
    for result in results:
        tally.add(result)
    scores = [r.score for r in results if r.score is not None]
    top = max([1.0, *scores])
    apart = set_apart(results)
    bars = histogram(measured(results), top, at_least=max([1, *(n for _, n in apart)]))
    most = max([1, *(n for _, n in apart), *(b.count for b in bars)])
    kind = SCORERS.get(scorer_id)
    return ScorerView(
        id=scorer_id,
        name=kind.name if kind is not None else scorer_id,
        measure=kind.measure if kind is not None else "score",
        unit=kind.unit if kind is not None else "verdicts",
        positive=kind.positive if kind is not None else "positive",
        statuses=[s.value for s in (kind.statuses if kind is not None else Status)],
        summary=tally.summary(),
        interval=bootstrap_mean(scores),
        top=top,
        bars=bars,
        apart=[Bar(label=label, count=n, height=100 * n / most) for label, n in apart],
        prompts=_distinct([r.prompt_version for r in results]),
        missed=most_missed(records, scorer_id),
    )


def report_view(records: Sequence[ItemRecord], source: str) -> ReportView:
    """Everything the report page shows about `records`."""
    ids = list(dict.fromkeys(sid for r in records for sid in r.results))
    scorers = [
        scorer_view(sid, [r.results[sid] for r in records if sid in r.results], records)
        for sid in ids
    ]
    by_measure = {s.measure: s for s in scorers}
    both = by_measure.get("recall"), by_measure.get("precision")
    results = [result for r in records for result in r.results.values()]
    return ReportView(
        source=source,
        models=_distinct([r.model_fingerprint for r in results]),
        prompts=_distinct([r.prompt_version for r in results]),
        libraries=_distinct([r.library_version for r in results]),
        judge_note=note_for_digests([r.judge_profile for r in results]),
        scorers=scorers,
        items=[item_view(r, {s.id: s.top for s in scorers}) for r in records],
        statuses=[s.value for s in Status],
        scatter=None
        if both[0] is None or both[1] is None
        else scatter(
            records,
            both[0].id,
            both[1].id,
            (both[0].measure, both[1].measure),
            (both[0].top, both[1].top),
        ),
    )
