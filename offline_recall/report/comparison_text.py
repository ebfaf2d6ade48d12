"""A comparison of two runs as plain text for the terminal. Text from the runs (ids, claims,
chunks, file, model and scorer names) is printed escaped (see `printable`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..printable import SHOWN, clipped, printable
from .comparison import Comparison, Flip, Pair

LABEL = 15
"""The least width of the labels of the summary lines (wider when a measure's name is)."""

QUOTED = 80
"""Characters of a chunk quoted in a flip's line."""


T = TypeVar("T")


def first_shown(
    header: str, found: Sequence[T], show: int, lines: Callable[[T], list[str]]
) -> list[str]:
    """`header`, then the `lines` of the first `show` of `found`, then how many more items the
    HTML page holds."""
    shown = [header]
    for item in found[:show]:
        shown += lines(item)
    if len(found) > show:
        shown.append(f"  ... and {len(found) - show} more items (all of them with --html FILE)")
    return shown


def mismatch_lines(mismatch: Sequence[str]) -> list[str]:
    """The warning that the runs' specs differ, when they do (see --allow-mismatch)."""
    if not mismatch:
        return []
    return [
        f"WARNING: the runs differ ({printable('; '.join(mismatch))}); "
        "compared anyway (--allow-mismatch)"
    ]


def models_text(models: Sequence[str], prompts: Sequence[str]) -> str:
    """The models and prompt versions a run scored with."""
    model, prompt = printable(", ".join(models)), printable(", ".join(prompts))
    return f"model {model or '-'}, prompt {prompt or '-'}"


def signed(value: float) -> str:
    return f"{value:+.4f}"


def item_label(pair: Pair) -> str:
    label = f"line {pair.line_a}" if pair.line_a == pair.line_b else printable(pair.key)
    return f"{label} ({printable(str(pair.id))})" if pair.id is not None else label


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def summary_lines(c: Comparison) -> list[str]:
    """The runs, how they were paired, the means, the difference and its uncertainty."""
    lines = [*mismatch_lines(c.mismatch), f"{printable(c.scorer_name)}: B against A"]
    for label, side in (("A", c.a), ("B", c.b)):
        lines.append(
            f"{label}  {printable(side.name)}: {side.items} items, "
            + models_text(side.models, side.prompts)
        )
    unpaired = f", {c.only_a} only in A, {c.only_b} only in B" if c.only_a or c.only_b else ""
    not_scored = f", {c.not_scored_text}" if c.not_scored else ""
    mean = f"mean {c.measure}"
    width = max(LABEL, len(mean) + 1)
    lines += [
        f"paired by {c.paired_by}: {c.paired} pairs{unpaired}{not_scored}; {c.compared} compared",
        "",
        f"{mean:<{width}}A {_number(c.mean_a)}   B {_number(c.mean_b)}",
    ]
    if c.diff is not None:
        ci = (
            f", {c.interval.level:.0%} CI [{signed(c.interval.low)}, {signed(c.interval.high)}]"
            f" ({c.interval.method})"
            if c.interval is not None
            else ""
        )
        lines += [
            f"{'difference':<{width}}B - A {signed(c.diff)}{ci}",
            f"{'sign test':<{width}}p = {c.p_value:.4g} (two-sided, ties left out)",
            f"{'B vs A':<{width}}{c.wins} better, {c.ties} tied, {c.losses} worse",
        ]
    return lines


def _quoted(text: str) -> str:
    flat = " ".join(text[: 4 * QUOTED].split())  # cut first: a long chunk costs what is shown
    return printable(repr(flat if len(flat) <= QUOTED else flat[: QUOTED - 1] + "…"))


def _flipped(flip: Flip) -> str:
    """What flipped: a claim, as written; a chunk, with its text (each run's, when the runs
    hold different texts at that place)."""
    if not flip.of_chunk:
        return printable(repr(clipped(flip.claim, SHOWN)))
    a, b = flip.chunk_a, flip.chunk_b
    where = printable(flip.claim)
    if a is None and b is None:
        return where
    if a == b or b is None:
        return f"{where} {_quoted(a or '')}"
    if a is None:
        return f"{where} {_quoted(b)}"
    return f"{where}: A {_quoted(a)}, B {_quoted(b)}"


def flip_lines(c: Comparison, show: int) -> list[str]:
    """The flipped verdicts (claims, chunks: the scorer's unit) of the first `show` items
    that have any, worst items first."""
    flipped = [p for p in c.pairs if p.flips]
    total = sum(len(p.flips) for p in flipped)
    if not flipped:
        return ["no verdict flipped between the runs"]
    unit = c.unit if total > 1 else c.unit.removesuffix("s")
    items = "items" if len(flipped) > 1 else "item"
    header = f"verdict flips: {total} {unit} in {len(flipped)} {items}, worst items first"
    return first_shown(header, flipped, show, _pair_lines)


def _pair_lines(pair: Pair) -> list[str]:
    """An item's scores in the two runs, then each verdict that flipped."""
    lines = [
        f"  {item_label(pair)}  {pair.score_a:.2f} -> {pair.score_b:.2f} ({signed(pair.diff)})"
    ]
    for flip in pair.flips:
        lines.append(
            f"    {'lost  ' if flip.lost else 'gained'}  {_flipped(flip)}  "
            f"P {flip.a.probability:.2f} -> {flip.b.probability:.2f}"
        )
    return lines


def comparison_text(c: Comparison, show: int = 10) -> str:
    """The whole comparison as the `compare` command prints it."""
    return "\n".join([*summary_lines(c), "", *flip_lines(c, show)])
