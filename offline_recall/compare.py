"""A/B comparison of two scored runs: paired differences, their uncertainty, and verdict flips."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from .errors import DatasetError
from .results import ResultRecord
from .stats import Interval, bootstrap_mean, sign_test
from .types import Verdict

TIE = 1e-9
"""Score differences smaller than this are ties."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PairBy(StrEnum):
    """How items of two runs are matched."""

    AUTO = "auto"
    """By id when every item of both runs has a unique id and the runs share some; else line."""
    ID = "id"
    LINE = "line"


class Flip(_Frozen):
    """A claim found in both runs whose verdict differs."""

    claim: str
    a: Verdict
    b: Verdict
    chunk_a: str | None = None
    """The chunk of run A's context that supports the claim, when A supports it."""
    chunk_b: str | None = None
    """The chunk of run B's context that supports the claim, when B supports it."""

    @property
    def lost(self) -> bool:
        """Supported in run A, not in run B."""
        return self.a.supported and not self.b.supported


class Pair(_Frozen):
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


class RunSide(_Frozen):
    """What one run brought to the comparison."""

    name: str
    items: int
    models: tuple[str, ...]
    prompts: tuple[str, ...]


class Comparison(_Frozen):
    """Run B against run A on their paired items; a positive difference means B recalls more."""

    a: RunSide
    b: RunSide
    paired_by: PairBy
    paired: int
    only_a: int
    only_b: int
    not_scored: int
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
    """How the runs' models or prompt versions differ; empty when they match."""

    @property
    def compared(self) -> int:
        return len(self.pairs)

    @property
    def flips(self) -> list[tuple[Pair, Flip]]:
        """Every flipped claim with its item, worst items first, lost support before gained."""
        return [(p, f) for p in self.pairs for f in p.flips]


def _id_key(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _ids_usable(records: Sequence[ResultRecord]) -> str | None:
    """Why the records' ids cannot pair them, or None when they can."""
    if any(r.id is None for r in records):
        return "some items have no id"
    repeated = [k for k, n in Counter(_id_key(r.id) for r in records).items() if n > 1]
    return f"id {repeated[0]!r} is repeated" if repeated else None


def _pair_by(a: Sequence[ResultRecord], b: Sequence[ResultRecord], how: PairBy) -> PairBy:
    problems = [f"run {n}: {p}" for n, rs in (("A", a), ("B", b)) if (p := _ids_usable(rs))]
    if how == PairBy.ID and problems:
        raise DatasetError(f"cannot pair by id ({'; '.join(problems)}); use --pair-by line")
    if how != PairBy.AUTO:
        return how
    shared = {_id_key(r.id) for r in a} & {_id_key(r.id) for r in b}
    return PairBy.ID if not problems and shared else PairBy.LINE


def _key(record: ResultRecord, by: PairBy) -> str:
    return f"id {_id_key(record.id)}" if by == PairBy.ID else f"line {record.line}"


def _claim_key(claim: str) -> str:
    return " ".join(claim.split()).casefold()


def _supporting(record: ResultRecord, verdict: Verdict) -> str | None:
    index, context = verdict.chunk_index, record.context
    if not verdict.supported or index is None or context is None or index >= len(context):
        return None
    return context[index]


def flipped_claims(a: ResultRecord, b: ResultRecord) -> tuple[Flip, ...]:
    """Claims judged in both records whose support differs; lost support first."""
    in_b = {_claim_key(v.claim): v for v in b.verdicts}
    found = [
        Flip(claim=va.claim, a=va, b=vb, chunk_a=_supporting(a, va), chunk_b=_supporting(b, vb))
        for va in a.verdicts
        if (vb := in_b.get(_claim_key(va.claim))) is not None and vb.supported != va.supported
    ]
    return tuple(sorted(found, key=lambda f: not f.lost))


def _mismatch(a: RunSide, b: RunSide) -> tuple[str, ...]:
    out = []
    if a.models != b.models:
        out.append(f"model: A {', '.join(a.models)}; B {', '.join(b.models)}")
    if a.prompts != b.prompts:
        out.append(f"prompt version: A {', '.join(a.prompts)}; B {', '.join(b.prompts)}")
    return tuple(out)


def _side(name: str, records: Sequence[ResultRecord]) -> RunSide:
    return RunSide(
        name=name,
        items=len(records),
        models=tuple(sorted({r.model_fingerprint for r in records})),
        prompts=tuple(sorted({r.prompt_version for r in records})),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare_runs(
    a: Sequence[ResultRecord],
    b: Sequence[ResultRecord],
    *,
    names: tuple[str, str] = ("A", "B"),
    pair_by: PairBy = PairBy.AUTO,
) -> Comparison:
    """Pair the items of runs `a` and `b`, and compare the scores of those scored in both.

    Differences are B minus A. The interval is a seeded bootstrap of the mean difference; the
    p-value is the two-sided sign test over items whose scores differ.
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
            score_a=ra.score,
            score_b=rb.score,
            flips=flipped_claims(ra, rb),
        )
        for ra, rb in matched
        if ra.score is not None and rb.score is not None
    ]
    pairs.sort(key=lambda p: (p.diff, -len(p.flips), p.line_a))
    diffs = [p.diff for p in pairs]
    wins = sum(d > TIE for d in diffs)
    losses = sum(d < -TIE for d in diffs)
    side_a, side_b = _side(names[0], a), _side(names[1], b)
    return Comparison(
        a=side_a,
        b=side_b,
        paired_by=by,
        paired=len(matched),
        only_a=len(a) - len(matched),
        only_b=len(in_b.keys() - keys_a),
        not_scored=len(matched) - len(pairs),
        mean_a=_mean([p.score_a for p in pairs]),
        mean_b=_mean([p.score_b for p in pairs]),
        diff=_mean(diffs),
        interval=bootstrap_mean(diffs),
        p_value=sign_test(wins, losses),
        wins=wins,
        ties=len(diffs) - wins - losses,
        losses=losses,
        pairs=tuple(pairs),
        mismatch=_mismatch(side_a, side_b),
    )
