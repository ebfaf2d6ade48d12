"""What a report page shows, computed from result records before the template renders it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from ..evals import Summary, Tally
from ..results import ResultRecord
from ..stats import Interval, bootstrap_mean
from ..types import Status
from .highlight import closest_chunk, highlight_excerpt

BINS = 10


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class ChunkView(_View):
    """A context chunk with a claim's words highlighted."""

    index: int
    html: Markup


class ClaimView(_View):
    """One claim, its verdict, and the chunk that supports it (or the closest one by words)."""

    claim: str
    supported: bool
    p_yes: float
    support: ChunkView | None
    closest: ChunkView | None


class ItemView(_View):
    """One scored row as the page shows it."""

    line: int
    id: str | None
    input: str | None
    ground_truth: str | None
    status: Status
    score: float | None
    band: str
    reason: str
    error: str | None
    claims: list[ClaimView]
    context: list[str] | None


class Bar(_View):
    """One histogram bin."""

    label: str
    count: int
    height: float


class ReportView(_View):
    """The whole report page."""

    source: str
    models: list[str]
    prompts: list[str]
    libraries: list[str]
    summary: Summary
    interval: Interval | None
    top: float
    bars: list[Bar]
    items: list[ItemView]

    @property
    def failed(self) -> list[ItemView]:
        return [i for i in self.items if i.status == Status.ERROR]


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


def _chunk(context: Sequence[str] | None, index: int | None, claim: str) -> ChunkView | None:
    if context is None or index is None or not 0 <= index < len(context):
        return None
    return ChunkView(index=index, html=highlight_excerpt(context[index], claim))


def claim_views(record: ResultRecord) -> list[ClaimView]:
    context = record.context
    return [
        ClaimView(
            claim=v.claim,
            supported=v.supported,
            p_yes=v.p_yes,
            support=_chunk(context, v.chunk_index, v.claim) if v.supported else None,
            closest=None
            if v.supported or context is None
            else _chunk(context, closest_chunk(context, v.claim), v.claim),
        )
        for v in record.verdicts
    ]


def item_view(record: ResultRecord, top: float) -> ItemView:
    return ItemView(
        line=record.line,
        id=None if record.id is None else str(record.id),
        input=as_text(record.input),
        ground_truth=as_text(record.ground_truth),
        status=record.status,
        score=record.score,
        band=band(record.score, top),
        reason=record.reason,
        error=record.error,
        claims=claim_views(record),
        context=record.context,
    )


def histogram(scores: Sequence[float], top: float, bins: int = BINS) -> list[Bar]:
    """Counts of scores in `bins` equal bins over [0, top]; the last bin includes `top`."""
    import numpy as np

    counts, edges = np.histogram(np.asarray(scores, dtype=float), bins=bins, range=(0.0, top))
    most = max(int(counts.max()) if len(scores) else 0, 1)
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


def report_view(records: Sequence[ResultRecord], source: str) -> ReportView:
    """Everything the report page shows about `records`."""
    tally = Tally()
    for record in records:
        tally.add(record.result())
    scores = [r.score for r in records if r.score is not None]
    top = max([1.0, *scores])
    return ReportView(
        source=source,
        models=_distinct([r.model_fingerprint for r in records]),
        prompts=_distinct([r.prompt_version for r in records]),
        libraries=_distinct([r.library_version for r in records]),
        summary=tally.summary(),
        interval=bootstrap_mean(scores),
        top=top,
        bars=histogram(scores, top),
        items=[item_view(r, top) for r in records],
    )
