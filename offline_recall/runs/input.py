"""The input a run scores: opened and checked against the run's scorers before any model is
resolved, and rows given in memory written as the JSON Lines file it reads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DatasetError

if TYPE_CHECKING:
    from ..data.dataset import Dataset

ROWS_FILE = "rows.jsonl"
"""The JSON Lines file that rows given in memory are written to, in a temporary folder when
the run writes no results."""


def rows_path(out: Path) -> Path:
    """Where a run writing `out` keeps the rows it was given in memory: `<out>.input.jsonl`."""
    return out.with_name(out.name + ".input.jsonl")


def write_rows(path: Path, content: bytes) -> None:
    """`content` written to `path` whole, unless it holds those bytes already (a run resumed on
    the same rows finds its input as it was)."""
    from ..data.destinations import replaced_whole

    try:
        if path.read_bytes() == content:
            return
    except OSError:
        pass
    with replaced_whole(path) as temp:
        temp.write_bytes(content)


def open_input(
    path: Path,
    scorers: Sequence[str],
    mapping: dict[str, str],
    context_sep: str | None = None,
    delimiter: str | None = None,
) -> Dataset:
    """The dataset at `path` (its fields read by `mapping`, a context cell split at
    `context_sep`, a CSV file's cells at `delimiter`), refused in one line, before any model,
    when it holds no rows, or none that can be scored, or no row holds a field one of
    `scorers` reads."""
    from ..data.dataset import open_dataset
    from ..scorer.registry import reads_context

    name, scorers = path.name, list(scorers)
    dataset = open_dataset(
        path, mapping, context_sep, context_required=reads_context(scorers), delimiter=delimiter
    )
    if dataset.total == 0:
        raise DatasetError(f"{name} holds no rows: nothing to score")
    check_rows(name, dataset, scorers)
    return dataset


def check_rows(name: str, dataset: Dataset, scorers: list[str]) -> None:
    """Refuse, before any model loads, a dataset none of whose rows can be scored (with the
    first reasons), or one in which no row holds a field that a scorer of the run reads."""
    from ..data.dataset import survey
    from ..printable import printable
    from ..scorer.registry import scorer_kind

    needed: dict[tuple[str, ...], list[str]] = {}
    for sid in scorers:
        for fields in scorer_kind(sid).row_fields():
            needed.setdefault(fields, []).append(sid)
    # No ground truth's key in the records read to detect the names: said without reading
    # the rows (a scorer that judges the output instead is not held back by it). Records
    # none of which could be read show no names at all: the survey says why they cannot.
    has_output = dataset.detection.found["output"] is not None
    needing = [
        s
        for s in scorers
        if scorer_kind(s).needs_ground_truth()
        and not (has_output and scorer_kind(s).output_for_ground_truth)
    ]
    named = bool(dataset.detection.columns) or any(isinstance(r, dict) for _, r in dataset.head)
    if (
        needing
        and named
        and (missing := dataset.detection.missing_ground_truth(name, " and ".join(needing)))
    ):
        raise DatasetError(missing)
    found = survey(dataset, list(needed))
    if not found.scorable:
        lines = [f"{name}: none of its {found.read} rows can be scored:"]
        lines += [f"  {printable(row.message)}" for row in found.refused]
        if found.read > len(found.refused):
            lines.append(f"  and {found.read - len(found.refused)} more")
        raise DatasetError("\n".join(lines))
    for fields, sids in needed.items():
        if not found.present.intersection(fields):
            raise DatasetError(dataset.detection.missing(fields[0], name, " and ".join(sids)))
