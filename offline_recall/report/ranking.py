"""Several scored runs ranked per scorer: each run's mean, and its paired difference against
the best run with an interval, a Holm-adjusted sign test, and wins, ties and losses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import DatasetError
from ..frozen import Frozen
from ..runs.results import ItemRecord
from .comparison import TIE, OneScorer, PairBy, _ids_usable, _key, record_mismatch
from .stats import Interval, bootstrap_mean, holm, sign_test


class VersusBest(Frozen):
    """A run against the best run on the items scored in both: this run minus the best."""

    diff: float
    """The mean paired difference (negative: this run scores lower)."""
    interval: Interval | None
    p_value: float
    """The two-sided sign test over the items whose scores differ (ties left out)."""
    p_holm: float
    """`p_value` adjusted by Holm's method for the ranking's number of comparisons."""
    wins: int
    """Items this run scores higher than the best run."""
    ties: int
    losses: int
    """Items this run scores lower than the best run."""


class RankedRun(Frozen):
    """One run's place in a ranking."""

    name: str
    rank: int
    """1 for the best run (the highest mean; the first given among equal means)."""
    mean: float
    interval: Interval | None
    models: tuple[str, ...]
    prompts: tuple[str, ...]
    versus: VersusBest | None = None
    """This run against the best; None for the best itself."""


class Disagreement(Frozen):
    """One item's scores in every run, in the ranking's order."""

    key: str
    id: Any = None
    scores: tuple[float, ...]

    @property
    def label(self) -> str:
        """The item as shown: its id, or its line and id when paired by line."""
        if self.key.startswith("line ") and self.id is not None:
            return f"{self.key} ({self.id})"
        return self.key.removeprefix("id ")

    @property
    def spread(self) -> float:
        """The highest score minus the lowest."""
        return max(self.scores) - min(self.scores)


class Ranking(OneScorer):
    """One scorer's results of several runs on the items they share, best run first."""

    paired_by: PairBy
    runs: tuple[RankedRun, ...]
    in_all: int
    """Items found in every run."""
    not_in_all: int
    """Items found in some runs only, left out."""
    not_scored: int
    """Items found in every run but not scored in one of them (an error), left out."""
    items: tuple[Disagreement, ...]
    """The items scored in every run, the largest spread of scores first."""
    mismatch: tuple[str, ...]
    """How the runs' specs differ from the first run's; empty if they do not."""

    @property
    def best(self) -> RankedRun:
        return self.runs[0]

    @property
    def compared(self) -> int:
        return len(self.items)

    @property
    def comparisons(self) -> int:
        """How many p-values the Holm adjustment accounts for: every run against the best."""
        return len(self.runs) - 1

    @property
    def forest_domain(self) -> tuple[float, float]:
        """The range of a forest plot of the differences against the best: every interval, its
        mean, and 0, with a little room on each side."""
        ends = [0.0]
        for run in self.runs:
            if run.versus is not None:
                ends.append(run.versus.diff)
                if run.versus.interval is not None:
                    ends += [run.versus.interval.low, run.versus.interval.high]
        low, high = min(ends), max(ends)
        room = max((high - low) * 0.08, 0.02)
        return low - room, high + room

    @property
    def disagreements(self) -> list[Disagreement]:
        """The items on which the runs' scores differ at all, the largest spread first."""
        return [d for d in self.items if d.spread > TIE]

    @property
    def interval_method(self) -> str:
        found = next((r.interval for r in self.runs if r.interval is not None), None)
        return found.method if found is not None else "no interval: fewer than two items"

    @property
    def level(self) -> float:
        found = next((r.interval for r in self.runs if r.interval is not None), None)
        return found.level if found is not None else 0.95


def _pair_by_all(runs: Sequence[Sequence[ItemRecord]], names: Sequence[str], how: PairBy) -> PairBy:
    problems = [
        f"run {n}: {p}" for n, rs in zip(names, runs, strict=True) if (p := _ids_usable(rs))
    ]
    if how == PairBy.ID and problems:
        raise DatasetError(f"cannot pair by id ({'; '.join(problems)}); use --pair-by line")
    if how != PairBy.AUTO:
        return how
    if problems:
        return PairBy.LINE
    shared = set.intersection(*({_key(r, PairBy.ID) for r in rs} for rs in runs))
    return PairBy.ID if shared else PairBy.LINE


def _mismatch(
    runs: Sequence[Sequence[ItemRecord]],
    names: Sequence[str],
    scorer: str,
    known: Sequence[Sequence[str] | None] | None,
) -> list[str]:
    out = []
    for i in range(1, len(runs)):
        given = known[i - 1] if known is not None else None
        found = given
        if found is None:
            found = record_mismatch(runs[0], runs[i], scorer, (names[0], names[i]))
        if found:
            out.append(f"{names[i]} against {names[0]}: {', '.join(found)}")
    return out


def _versus(scores: Sequence[float], best: Sequence[float]) -> VersusBest:
    """`scores` against the best run's `best` on the same items; Holm's p is set afterwards."""
    diffs = [x - y for x, y in zip(scores, best, strict=True)]
    wins = sum(d > TIE for d in diffs)
    losses = sum(d < -TIE for d in diffs)
    p = sign_test(wins, losses)
    return VersusBest(
        diff=sum(diffs) / len(diffs),
        interval=bootstrap_mean(diffs),
        p_value=p,
        p_holm=p,
        wins=wins,
        ties=len(diffs) - wins - losses,
        losses=losses,
    )


def rank_runs(
    runs: Sequence[Sequence[ItemRecord]],
    names: Sequence[str],
    *,
    scorer: str,
    pair_by: PairBy = PairBy.AUTO,
    mismatch: Sequence[Sequence[str] | None] | None = None,
) -> Ranking:
    """Rank `runs` by `scorer`'s mean over the items scored in every run, and compare each
    with the best run, item by item.

    Items are paired by id when every run's ids are unique and shared, else by line. Each
    run's mean has a seeded bootstrap interval; each run's difference against the best (this
    run minus the best) has one too, with a two-sided sign test whose p-values are adjusted by
    Holm's method for the number of runs compared with the best. `mismatch` gives, for each
    run after the first, how its spec differs from the first's (from the manifests), None
    where unknown: the records' own fields are then compared.
    """
    if len(runs) < 2 or len(runs) != len(names):
        raise ValueError("rank_runs needs two runs or more, each with its name")
    by = _pair_by_all(runs, names, pair_by)
    keyed = [{_key(r, by): r for r in rs} for rs in runs]
    every = set.intersection(*(set(k) for k in keyed))
    anywhere = set.union(*(set(k) for k in keyed))
    order = [k for k in keyed[0] if k in every]
    scored: list[tuple[str, Any, list[float]]] = []
    for key in order:
        found = [k[key].result(scorer).score for k in keyed]
        if all(s is not None for s in found):
            record = keyed[0][key]
            scored.append((key, record.id, [s for s in found if s is not None]))
    if not scored:
        raise DatasetError(
            f"no item is scored in every run ({len(every)} found in every run, by {by})"
        )
    columns = [[row[2][i] for row in scored] for i in range(len(runs))]
    means = [sum(c) / len(c) for c in columns]
    places = sorted(range(len(runs)), key=lambda i: -means[i])
    versus = {i: _versus(columns[i], columns[places[0]]) for i in places[1:]}
    adjusted = holm([v.p_value for v in versus.values()])
    for i, p in zip(versus, adjusted, strict=True):
        versus[i] = versus[i].model_copy(update={"p_holm": p})
    ranked = []
    for rank, i in enumerate(places, start=1):
        results = [r.result(scorer) for r in runs[i]]
        ranked.append(
            RankedRun(
                name=names[i],
                rank=rank,
                mean=means[i],
                interval=bootstrap_mean(columns[i]),
                models=tuple(sorted({r.model_fingerprint for r in results})),
                prompts=tuple(sorted({r.prompt_version for r in results})),
                versus=versus.get(i),
            )
        )
    items = [
        Disagreement(key=key, id=id_, scores=tuple(scores[i] for i in places))
        for key, id_, scores in scored
    ]
    items.sort(key=lambda d: -d.spread)
    return Ranking(
        scorer=scorer,
        paired_by=by,
        runs=tuple(ranked),
        in_all=len(every),
        not_in_all=len(anywhere - every),
        not_scored=len(every) - len(scored),
        items=tuple(items),
        mismatch=tuple(_mismatch(runs, names, scorer, mismatch)),
    )
