"""What `score` gives back: a scored dataset's records, each scorer's summary and the run's
spec, manifest and files, and the records as a pandas DataFrame."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MissingExtraError
from .results import ItemRecord
from .run_manifest import RunManifest
from .spec import RunSpec
from .summary import Summary

if TYPE_CHECKING:
    import pandas

ROW_COLUMNS = ("line", "id", "input", "output", "ground_truth", "context", "metadata")
"""The columns of `DatasetScores.to_pandas()` before each scorer's."""
SCORER_COLUMNS = ("status", "reason", "error")
"""Each scorer's columns after its score, `<scorer id>.<name>`."""


@dataclass(frozen=True, repr=False)
class DatasetScores:
    """A dataset scored: iterate it for each row's record (`ItemRecord`, in line order, as the
    results file holds them), read each scorer's `summaries` (its mean, items, counts by status,
    verdicts), and turn it into a DataFrame with `to_pandas()`.

    Failed rows (status `error`) are in the records with their error, counted in the summaries
    and never averaged in. `failed` holds the first of them. `spec` is what decided every score;
    `manifest` heads the run's files: the results (`out`), the manifest beside them
    (`manifest_path`) and the run store that resumes it (`store`), each None when not written.
    """

    spec: RunSpec
    manifest: RunManifest
    summaries: dict[str, Summary]
    """Each scorer's summary, by scorer id, in the spec's order."""
    total: int
    """The rows of the input: one record each."""
    failed: list[ItemRecord]
    """The first records of rows that failed (status error for some scorer), in line order."""
    out: Path | None = None
    manifest_path: Path | None = None
    store: Path | None = None
    """The run store (a folder of shards on Ray) that a later run with the same spec and input
    resumes from."""
    _records: Callable[[], Iterator[ItemRecord]] = field(default=lambda: iter(()), repr=False)

    def __iter__(self) -> Iterator[ItemRecord]:
        """Every row's record in line order, read from the run store when the run kept one
        (each time it is iterated), else held in memory."""
        return self._records()

    def __len__(self) -> int:
        return self.total

    def __repr__(self) -> str:
        means = "; ".join(
            f"{sid} mean {'n/a' if s.mean is None else f'{s.mean:.4f}'}, {s.failed} failed"
            for sid, s in self.summaries.items()
        )
        where = "" if self.out is None else f", out={str(self.out)!r}"
        return f"DatasetScores({self.total} items: {means}{where})"

    @property
    def scorer_ids(self) -> list[str]:
        return self.spec.scorer_ids

    def mean(self, scorer_id: str | None = None) -> float | None:
        """The mean score of `scorer_id` (the only scorer when None) over the items it scored;
        None when it scored none."""
        if scorer_id is None:
            if len(self.scorer_ids) != 1:
                raise ValueError(f"several scorers ran: name one of {', '.join(self.scorer_ids)}")
            scorer_id = self.scorer_ids[0]
        if scorer_id not in self.summaries:
            raise KeyError(f"{scorer_id} did not run (scorers: {', '.join(self.scorer_ids)})")
        return self.summaries[scorer_id].mean

    def to_pandas(self) -> pandas.DataFrame:
        """One row per item, in line order: the row's fields (`line`, `id`, `input`, `output`,
        `ground_truth`, `context`, `metadata`), then for each scorer a column named by its id
        holding the score (pandas' nullable `Float64`: `<NA>` where the row failed) and its
        `<id>.status`, `<id>.reason` and `<id>.error` columns. Verdicts stay in the records.
        pandas is imported here, and only here."""
        try:
            import pandas
        except ImportError as e:
            raise MissingExtraError("pandas", "pip install pandas") from e

        return _frame(pandas, self, self.scorer_ids)


def _frame(pandas: Any, records: Iterable[ItemRecord], ids: Sequence[str]) -> Any:
    """The DataFrame of `DatasetScores.to_pandas`."""
    rows: list[dict[str, Any]] = []
    for record in records:
        row: dict[str, Any] = {name: getattr(record, name) for name in ROW_COLUMNS}
        for sid in ids:
            result = record.results.get(sid)
            row[sid] = None if result is None else result.score
            row[f"{sid}.status"] = None if result is None else result.status.value
            row[f"{sid}.reason"] = None if result is None else result.reason
            row[f"{sid}.error"] = None if result is None else result.error
        rows.append(row)
    columns = [*ROW_COLUMNS, *(c for sid in ids for c in (sid, *_named(sid)))]
    frame = pandas.DataFrame(rows, columns=columns)
    for sid in ids:
        frame[sid] = frame[sid].astype("Float64")
    return frame


def _named(scorer_id: str) -> tuple[str, ...]:
    return tuple(f"{scorer_id}.{name}" for name in SCORER_COLUMNS)
