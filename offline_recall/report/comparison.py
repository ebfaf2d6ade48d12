"""A/B comparison of two scored runs: paired differences, their uncertainty, and verdict flips."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from ..errors import DatasetError
from ..frozen import Frozen
from ..runs.results import ItemRecord
from ..scorer.registry import SCORERS
from ..scorer.results import Verdict
from .highlight import closest_chunk
from .stats import Interval, bootstrap_mean, sign_test

TIE = 1e-9
"""Score differences smaller than this are ties."""


class PairBy(StrEnum):
    """How items of two runs are matched."""

    AUTO = "auto"
    """By id when every item of both runs has a unique id and the runs share some; else line."""
    ID = "id"
    LINE = "line"


class Flip(Frozen):
    """A verdict found in both runs that differs (a claim supported in one run only)."""

    claim: str
    a: Verdict
    b: Verdict
    chunk_a: str | None = None
    """The chunk of run A's context the verdict is about: the chunk judged (precision), the
    supporting one (a positive claim verdict), else the closest to the claim by shared words."""
    chunk_b: str | None = None
    """The same chunk of run B's context."""
    index_a: int | None = None
    """The index of `chunk_a` in run A's context."""
    index_b: int | None = None
    """The index of `chunk_b` in run B's context."""

    @property
    def lost(self) -> bool:
        """Positive in run A, not in run B."""
        return self.a.positive and not self.b.positive

    @property
    def of_chunk(self) -> bool:
        """The verdict judges a chunk itself (its relevance), not a claim."""
        return self.a.of_chunk


class Pair(Frozen):
    """One item scored in both runs."""

    key: str
    id: Any = None
    line_a: int
    line_b: int
    score_a: float
    score_b: float
    flips: tuple[Flip, ...] = ()

    @property
    def diff(self) -> float:
        """Run B's score minus run A's."""
        return self.score_b - self.score_a


class RunSide(Frozen):
    """What one run brought to the comparison."""

    name: str
    items: int
    models: tuple[str, ...]
    prompts: tuple[str, ...]


class OneScorer(Frozen):
    """Results of one scorer, and the words its registry entry gives them (an unregistered
    scorer's: its id, and plain words)."""

    scorer: str

    @property
    def scorer_name(self) -> str:
        """The scorer's name ("Context Recall Scorer"), or its id when it is not registered."""
        kind = SCORERS.get(self.scorer)
        return self.scorer if kind is None else kind.name

    @property
    def measure(self) -> str:
        """What the scorer's score measures ("recall")."""
        kind = SCORERS.get(self.scorer)
        return "score" if kind is None else kind.measure

    @property
    def positive(self) -> str:
        """What a positive verdict is called ("supported", "relevant")."""
        kind = SCORERS.get(self.scorer)
        return "positive" if kind is None else kind.positive

    @property
    def unit(self) -> str:
        """What the scorer's verdicts judge, plural: claims for recall, chunks for precision."""
        kind = SCORERS.get(self.scorer)
        return "verdicts" if kind is None else kind.unit


class Comparison(OneScorer):
    """One scorer's results of run B against run A on their paired items; a positive
    difference means B scores higher."""

    a: RunSide
    b: RunSide
    paired_by: PairBy
    paired: int
    only_a: int
    only_b: int
    not_scored: int
    """Paired items left out of the means: not scored in A, in B, or in either."""
    unscored_a: int = 0
    """Paired items scored in B only (an error in A)."""
    unscored_b: int = 0
    """Paired items scored in A only (an error in B)."""
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    interval: Interval | None
    p_value: float
    wins: int
    ties: int
    losses: int
    pairs: tuple[Pair, ...]
    """Items scored in both runs, worst first: the largest drop from A to B leads."""
    mismatch: tuple[str, ...]
    """How the runs' specs differ (model, engine, scale, prompts, profiles); empty if not."""

    @property
    def compared(self) -> int:
        return len(self.pairs)

    @property
    def unscored_both(self) -> int:
        """Paired items scored in neither run."""
        return self.not_scored - self.unscored_a - self.unscored_b

    @property
    def not_scored_text(self) -> str:
        """Where the paired items left out of the means failed ("not scored: 1 in A only,
        2 in both runs"); "" when none was."""
        parts = [
            f"{n} {where}"
            for n, where in (
                (self.unscored_a, "in A only"),
                (self.unscored_b, "in B only"),
                (self.unscored_both, "in both runs"),
            )
            if n
        ]
        return f"not scored: {', '.join(parts)}" if parts else ""

    @property
    def flips(self) -> list[tuple[Pair, Flip]]:
        """Every flipped claim with its item, worst items first, lost support before gained."""
        return [(p, f) for p in self.pairs for f in p.flips]


def _id_key(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _ids_usable(records: Sequence[ItemRecord]) -> str | None:
    """Why the records' ids cannot pair them, or None when they can."""
    if any(r.id is None for r in records):
        return "some items have no id"
    repeated = [k for k, n in Counter(_id_key(r.id) for r in records).items() if n > 1]
    return f"id {repeated[0]!r} is repeated" if repeated else None


def _pair_by(a: Sequence[ItemRecord], b: Sequence[ItemRecord], how: PairBy) -> PairBy:
    problems = [f"run {n}: {p}" for n, rs in (("A", a), ("B", b)) if (p := _ids_usable(rs))]
    if how == PairBy.ID and problems:
        raise DatasetError(f"cannot pair by id ({'; '.join(problems)}); use --pair-by line")
    if how != PairBy.AUTO:
        return how
    shared = {_id_key(r.id) for r in a} & {_id_key(r.id) for r in b}
    return PairBy.ID if not problems and shared else PairBy.LINE


def _key(record: ItemRecord, by: PairBy) -> str:
    return f"id {_id_key(record.id)}" if by == PairBy.ID else f"line {record.line}"


def _pointed(record: ItemRecord, judgment: Verdict) -> int | None:
    """The chunk a verdict is about in `record`'s context: the chunk judged, the supporting
    chunk, or, for a claim no chunk supports, the closest one by shared words."""
    index, context = judgment.chunk_index, record.context
    if context is None:
        return None
    if not judgment.of_chunk and not judgment.positive:
        index = closest_chunk(context, judgment.text)
    return index if index is not None and 0 <= index < len(context) else None


def _flip(a: ItemRecord, b: ItemRecord, ja: Verdict, jb: Verdict) -> Flip:
    ia, ib = _pointed(a, ja), _pointed(b, jb)
    return Flip(
        claim=ja.text,
        a=ja,
        b=jb,
        chunk_a=None if ia is None or a.context is None else a.context[ia],
        chunk_b=None if ib is None or b.context is None else b.context[ib],
        index_a=ia,
        index_b=ib,
    )


def flipped(a: ItemRecord, b: ItemRecord, scorer: str) -> tuple[Flip, ...]:
    """Verdicts of `scorer` found in both records that differ; lost ones first."""
    in_b = {j.key: j for j in b.result(scorer).judgments()}
    found = [
        _flip(a, b, ja, jb)
        for ja in a.result(scorer).judgments()
        if (jb := in_b.get(ja.key)) is not None and jb.positive != ja.positive
    ]
    return tuple(sorted(found, key=lambda f: not f.lost))


def record_mismatch(
    a: Sequence[ItemRecord],
    b: Sequence[ItemRecord],
    scorer: str,
    names: tuple[str, str] = ("A", "B"),
) -> list[str]:
    """How two runs' records say they were scored differently, when no manifest says more,
    each run's values under its name in `names`."""
    fields: list[tuple[str, Callable[[ItemRecord], str]]] = [
        ("run spec", lambda r: r.spec_digest or "-"),
        ("model", lambda r: r.result(scorer).model_fingerprint),
        ("prompt version", lambda r: r.result(scorer).prompt_version),
        ("judge profile", lambda r: r.result(scorer).judge_profile or "-"),
    ]
    out = []
    for label, field in fields:
        va, vb = sorted({field(r) for r in a}), sorted({field(r) for r in b})
        if va != vb:
            out.append(f"{label}: {names[0]} {', '.join(va)}; {names[1]} {', '.join(vb)}")
    return out


def _side(name: str, records: Sequence[ItemRecord], scorer: str) -> RunSide:
    results = [r.result(scorer) for r in records]
    return RunSide(
        name=name,
        items=len(records),
        models=tuple(sorted({r.model_fingerprint for r in results})),
        prompts=tuple(sorted({r.prompt_version for r in results})),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare_runs(
    a: Sequence[ItemRecord],
    b: Sequence[ItemRecord],
    *,
    scorer: str,
    names: tuple[str, str] = ("A", "B"),
    pair_by: PairBy = PairBy.AUTO,
    mismatch: Sequence[str] | None = None,
) -> Comparison:
    """Pair the items of runs `a` and `b`, and compare `scorer`'s scores of the items scored
    in both.

    Differences are B minus A. The interval is a seeded bootstrap of the mean difference; the
    p-value is the two-sided sign test over items whose scores differ. `mismatch` says how the
    runs' specs differ (from their manifests); without it the records' own fields are compared.
    """
    by = _pair_by(a, b, pair_by)
    in_b = {_key(r, by): r for r in b}
    keys_a = {_key(r, by) for r in a}
    matched = [(ra, in_b[k]) for ra in a if (k := _key(ra, by)) in in_b]
    pairs = [
        Pair(
            key=_key(ra, by),
            id=ra.id if ra.id is not None else rb.id,
            line_a=ra.line,
            line_b=rb.line,
            score_a=sa,
            score_b=sb,
            flips=flipped(ra, rb, scorer),
        )
        for ra, rb in matched
        if (sa := ra.result(scorer).score) is not None
        and (sb := rb.result(scorer).score) is not None
    ]
    pairs.sort(key=lambda p: (p.diff, -len(p.flips), p.line_a))
    diffs = [p.diff for p in pairs]
    wins = sum(d > TIE for d in diffs)
    losses = sum(d < -TIE for d in diffs)
    side_a, side_b = _side(names[0], a, scorer), _side(names[1], b, scorer)
    return Comparison(
        scorer=scorer,
        a=side_a,
        b=side_b,
        paired_by=by,
        paired=len(matched),
        only_a=len(a) - len(matched),
        only_b=len(in_b.keys() - keys_a),
        not_scored=len(matched) - len(pairs),
        unscored_a=sum(
            ra.result(scorer).score is None and rb.result(scorer).score is not None
            for ra, rb in matched
        ),
        unscored_b=sum(
            ra.result(scorer).score is not None and rb.result(scorer).score is None
            for ra, rb in matched
        ),
        mean_a=_mean([p.score_a for p in pairs]),
        mean_b=_mean([p.score_b for p in pairs]),
        diff=_mean(diffs),
        interval=bootstrap_mean(diffs),
        p_value=sign_test(wins, losses),
        wins=wins,
        ties=len(diffs) - wins - losses,
        losses=losses,
        pairs=tuple(pairs),
        mismatch=tuple(mismatch if mismatch is not None else record_mismatch(a, b, scorer)),
    )
