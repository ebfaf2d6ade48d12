"""What a report page shows, computed from result records before the template renders it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from ..judging.disclosure import card_lines, note_for_digests
from ..runs.results import ItemRecord
from ..runs.summary import Summary, Tally
from ..scorer.registry import SCORERS
from ..scorer.results import ScoreResult, Status
from .highlight import closest_chunk, highlight_excerpt
from .insights import APART, Missed, MissedClaims, Places, Scatter
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
    title: str
    """The scorer's name as a heading reads ("Context recall")."""
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
    output: str | None
    """The answer being checked (what faithfulness judges)."""
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


class FailedView(_View):
    """A row that failed, as the list of failed rows names it."""

    line: int
    id: str | None
    error: str


class ScorerView(_View):
    """One scorer over the whole run: its summary, interval and histogram."""

    id: str
    name: str
    title: str
    """Its name as a heading reads ("Context recall")."""
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
    judge_cards: list[str] = []
    """Each shipped judge that decided (a bundled profile or a bundled model's plain rule), with
    its count right per kind of behaviour case."""
    scorers: list[ScorerView]
    count: int
    """The items of the run: the page lists them all, a page at a time."""
    failed: list[FailedView]
    """The first `FAILED_SHOWN` failed rows."""
    failed_count: int
    statuses: list[str]
    scatter: Scatter | None = None
    """Recall against precision, when the run has both."""

    @property
    def scorer_map(self) -> dict[str, ScorerView]:
        return {s.id: s for s in self.scorers}

    @property
    def title(self) -> str:
        """ "Context recall report", or one naming every scorer that ran: "Context recall,
        context precision and faithfulness report"."""
        return f"{readable_list([s.title for s in self.scorers]) or 'Score'} report"


FAILED_SHOWN = 100
"""Failed rows listed under the summary; the rest are counted (the items filter finds them)."""


def readable_list(titles: Sequence[str]) -> str:
    """ "A, b and c": the titles joined as a sentence reads, its first letter capitalised."""
    words = [t[:1].lower() + t[1:] if i else t[:1].upper() + t[1:] for i, t in enumerate(titles)]
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def scorer_title(scorer_id: str) -> str:
    """A scorer's name as a heading reads: "Context Recall Scorer" becomes "Context recall"."""
    kind = SCORERS.get(scorer_id)
    if kind is None:
        return scorer_id
    name = kind.name.removesuffix(" Scorer")
    return name[:1] + name[1:].lower()


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
        output=as_text(record.output),
        ground_truth=as_text(record.ground_truth),
        context=record.context,
        results=[
            ResultView(
                scorer=sid,
                measure=_measure(sid),
                title=scorer_title(sid),
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


class _ScorerTally:
    """One scorer's results added up one at a time: counts and scores, never the results."""

    def __init__(self, scorer_id: str) -> None:
        self.id = scorer_id
        self.tally = Tally()
        self.scores: list[float] = []
        self.measured: list[float] = []
        self.apart = dict.fromkeys(APART, 0)
        self.prompts: set[str] = set()
        self.missed = MissedClaims(scorer_id)

    def add(self, record: ItemRecord, result: ScoreResult) -> None:
        self.tally.add(result)
        if result.score is not None:
            self.scores.append(result.score)
            if result.status not in APART:
                self.measured.append(result.score)
        if result.status in self.apart:
            self.apart[result.status] += 1
        self.prompts.add(result.prompt_version)
        self.missed.add(record)

    def view(self) -> ScorerView:
        top = max([1.0, *self.scores])
        apart = [(APART[s], n) for s, n in self.apart.items() if n]
        bars = histogram(self.measured, top, at_least=max([1, *(n for _, n in apart)]))
        most = max([1, *(n for _, n in apart), *(b.count for b in bars)])
        kind = SCORERS.get(self.id)
        return ScorerView(
            id=self.id,
            name=kind.name if kind is not None else self.id,
            title=scorer_title(self.id),
            measure=kind.measure if kind is not None else "score",
            unit=kind.unit if kind is not None else "verdicts",
            positive=kind.positive if kind is not None else "positive",
            statuses=[s.value for s in (kind.statuses if kind is not None else Status)],
            summary=self.tally.summary(),
            interval=bootstrap_mean(self.scores),
            top=top,
            bars=bars,
            apart=[Bar(label=label, count=n, height=100 * n / most) for label, n in apart],
            prompts=sorted(self.prompts),
            missed=self.missed.ranked(),
        )


def report_view(records: Iterable[ItemRecord], source: str) -> ReportView:
    """Everything the report page shows about `records` but the items themselves, read in
    one pass that keeps counts and scores, not records: the items are rendered in a second
    pass (`html.report_chunks`)."""
    tallies: dict[str, _ScorerTally] = {}
    models: set[str] = set()
    prompts: set[str] = set()
    libraries: set[str] = set()
    profiles: set[str | None] = set()
    places: dict[tuple[str, str], Places] = {}
    failed: list[FailedView] = []
    failed_count = count = 0
    for record in records:
        count += 1
        error = None
        for sid, result in record.results.items():
            tallies.setdefault(sid, _ScorerTally(sid)).add(record, result)
            models.add(result.model_fingerprint)
            prompts.add(result.prompt_version)
            libraries.add(result.library_version)
            profiles.add(result.judge_profile)
            error = error or result.error
        if error is not None:
            failed_count += 1
            if len(failed) < FAILED_SHOWN:
                id_ = None if record.id is None else str(record.id)
                failed.append(FailedView(line=record.line, id=id_, error=error))
        pair = _recall_and_precision(record)
        if pair is not None:
            places.setdefault(pair, Places(*pair)).add(record)
    scorers = [t.view() for t in tallies.values()]
    by_id = {s.id: s for s in scorers}
    by_measure = {s.measure: s for s in scorers}
    both = by_measure.get("recall"), by_measure.get("precision")
    plane = None if both[0] is None or both[1] is None else places.get((both[0].id, both[1].id))
    return ReportView(
        source=source,
        models=sorted(models),
        prompts=sorted(prompts),
        libraries=sorted(libraries),
        judge_note=note_for_digests(sorted(profiles, key=str)),
        judge_cards=card_lines(sorted(profiles, key=str)),
        scorers=scorers,
        count=count,
        failed=failed,
        failed_count=failed_count,
        statuses=[s.value for s in Status],
        scatter=None
        if plane is None
        else plane.scatter(
            (by_id[plane.x].measure, by_id[plane.y].measure),
            (by_id[plane.x].top, by_id[plane.y].top),
        ),
    )


def _recall_and_precision(record: ItemRecord) -> tuple[str, str] | None:
    """The ids of the record's first recall and first precision scorers, when it has both."""
    x = next((sid for sid in record.results if _measure(sid) == "recall"), None)
    y = next((sid for sid in record.results if _measure(sid) == "precision"), None)
    return None if x is None or y is None else (x, y)
