"""A ranking of several runs as plain text for the terminal. Text from the runs (ids, file,
model and scorer names) is printed escaped (see `printable`)."""

from __future__ import annotations

from ..printable import printable
from .comparison_text import first_shown, mismatch_lines, models_text, signed
from .ranking import Disagreement, RankedRun, Ranking
from .stats import Interval


def _interval(interval: Interval | None, sign: bool) -> str:
    if interval is None:
        return "n/a"
    if sign:
        return f"[{signed(interval.low)}, {signed(interval.high)}]"
    return f"[{interval.low:.4f}, {interval.high:.4f}]"


def _row(run: RankedRun) -> list[str]:
    cells = [
        str(run.rank),
        printable(run.name),
        f"{run.mean:.4f}",
        _interval(run.interval, sign=False),
    ]
    v = run.versus
    if v is None:
        return [*cells, "best", "", "", "", "", ""]
    return [
        *cells,
        signed(v.diff),
        _interval(v.interval, sign=True),
        f"{v.p_holm:.4g}",
        str(v.wins),
        str(v.ties),
        str(v.losses),
    ]


def table_lines(r: Ranking) -> list[str]:
    """The ranking as an aligned table, best run first, and what its columns mean."""
    pct = f"{r.level:.0%}"
    head = ["rank", "run", f"mean {r.measure}", f"{pct} CI", "vs best", f"{pct} CI"]
    head += ["p (Holm)", "better", "tied", "worse"]
    rows = [head, *(_row(run) for run in r.runs)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    left = {1}
    lines = [
        "  ".join(
            cell.ljust(w) if i in left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    lines += [
        "",
        f"vs best: the run minus the best run, item by item; CI: {r.interval_method}",
        f"p (Holm): two-sided sign test (ties left out), adjusted by Holm's method for "
        f"{r.comparisons} comparison{'' if r.comparisons == 1 else 's'}",
        "better, tied, worse: items the run scores higher than, as, or lower than the best run",
    ]
    return lines


def summary_lines(r: Ranking) -> list[str]:
    """The scorer, the runs' models and prompts, and how the items were paired."""
    lines = [
        *mismatch_lines(r.mismatch),
        f"{printable(r.scorer_name)}: {len(r.runs)} runs ranked, best first",
    ]
    sides = {(run.models, run.prompts) for run in r.runs}
    if len(sides) == 1:
        lines.append(f"every run: {models_text(*sides.pop())}")
    else:
        lines += [
            f"{printable(run.name)}: {models_text(run.models, run.prompts)}" for run in r.runs
        ]
    left_out = [
        f"{n} {what}"
        for n, what in ((r.not_in_all, "in some runs only"), (r.not_scored, "not scored in all"))
        if n
    ]
    extra = f", left out: {', '.join(left_out)}" if left_out else ""
    lines.append(
        f"paired by {r.paired_by}: {r.in_all} items in every run{extra}; {r.compared} compared"
    )
    return lines


def _runs_at(r: Ranking, d: Disagreement, score: float) -> str:
    """The runs that give item `d` `score`: up to three by name, then how many more."""
    names = [printable(run.name) for run, s in zip(r.runs, d.scores, strict=True) if s == score]
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return f"({', '.join(names[:3])}{more})"


def disagreement_lines(r: Ranking, show: int) -> list[str]:
    """The first `show` items whose scores differ most between the runs."""
    found = r.disagreements
    if not found:
        return ["every run scores every item the same"]
    header = (
        f"items where the runs disagree most: {len(found)} of {r.compared} differ, "
        "largest spread first"
    )

    def spread(d: Disagreement) -> list[str]:
        high, low = max(d.scores), min(d.scores)
        return [
            f"  {printable(d.label)}  spread {d.spread:.2f}: "
            f"highest {high:.2f} {_runs_at(r, d, high)}, lowest {low:.2f} {_runs_at(r, d, low)}"
        ]

    return first_shown(header, found, show, spread)


def ranking_text(r: Ranking, show: int = 10) -> str:
    """The whole ranking as the `compare` command prints it for three runs or more."""
    return "\n".join([*summary_lines(r), "", *table_lines(r), "", *disagreement_lines(r, show)])
