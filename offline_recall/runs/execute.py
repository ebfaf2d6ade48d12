"""One run of a dataset into a result store, whichever runner scores it.

The run is bound to its identity (a store holding another run is refused), the rows the store
does not hold yet are scored and committed, and the results are written from the store: the
same steps for the local runner (a SQLite run store, see `local.LocalRunner`) and for Ray (a
folder of Parquet shards, see `ray_shards.ShardRunner`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Protocol

from ..data.dataset import Dataset
from ..data.destinations import refuse_linked_folders
from ..scorer.results import Status
from .resolve import ResolvedRun, resolve_recorded
from .results import ItemRecord, OutputFormat, output_format
from .run_manifest import InputSpec, RunIdentity, RunManifest, build_manifest
from .spec import RunSpec
from .store import manifest_path, write_manifest
from .summary import Summary

Say = Callable[[str], None]
"""Told, as a line of text, what a run is doing (resuming, where it scores)."""

FIRST_FAILED = 5
"""Failed rows a run returns for the summary to show; the others are in the results."""


class RecordStore(Protocol):
    """Where a run's records are committed as they are scored, and read back from."""

    def claim(self, identity: RunIdentity, manifest: RunManifest, dataset: Dataset) -> None:
        """Bind the store to the run `identity` names (a store holding another run is refused)
        and keep its manifest, before `dataset` is scored."""
        ...

    def resuming(self, total: int) -> str | None:
        """What a run resumed on this store says about the rows held; None when it holds none."""
        ...

    def score(self, run: ResolvedRun, dataset: Dataset, say: Say) -> None:
        """Score and commit the rows of `dataset` not held yet, as `run` says."""
        ...

    def abandon(self) -> None:
        """The run failed: remove what it left if the store was new and holds no row."""
        ...

    def kept(self) -> int:
        """How many rows the store holds for good now: a resumed run does not score them
        again."""
        ...

    def finish(
        self, out: Path | None, fmt: OutputFormat, scorer_ids: list[str]
    ) -> dict[str, Summary]:
        """Each scorer's summary over every record; with `out`, the records also written there
        in line order."""
        ...

    def records(self) -> Iterator[ItemRecord]:
        """Every record held, in line order."""
        ...


@dataclass(frozen=True)
class RunOutcome:
    """What a run leaves: its manifest, each scorer's summary, the records when asked, and
    the first records of failed rows (status error for some scorer), in line order."""

    manifest: RunManifest
    summaries: dict[str, Summary]
    records: list[ItemRecord] = field(default_factory=list)
    failed: list[ItemRecord] = field(default_factory=list)


class Interrupted(KeyboardInterrupt):
    """A run stopped from the keyboard (Ctrl-C), with the rows its store keeps."""

    def __init__(self, kept: int, total: int) -> None:
        super().__init__(f"interrupted: {kept} of {total} rows are kept")
        self.kept = kept
        self.total = total


def first_failed(records: Iterable[ItemRecord], count: int = FIRST_FAILED) -> list[ItemRecord]:
    """The first `count` records with an error result, in the order given."""
    failed = (r for r in records if any(x.status is Status.ERROR for x in r.results.values()))
    return list(islice(failed, count))


def _silent(_: str) -> None:
    pass


def run_dataset(
    spec: RunSpec | ResolvedRun,
    dataset: Dataset,
    given: InputSpec,
    store: RecordStore,
    out: Path | None = None,
    *,
    keep_records: bool = False,
    say: Say = _silent,
) -> RunOutcome:
    """Score `dataset` as `spec` says into `store`, resuming what it holds, then write `out`
    (JSON Lines or Parquet, by its extension) and its manifest beside it.

    `spec` is a resolved run (`resolve_run`), or a spec, resolved here. `given` says how the
    dataset was read (its path and field mapping): with the spec, it is the run's identity.
    `keep_records` returns every record too. Stopped from the keyboard, it raises
    `Interrupted`, saying how many rows the store keeps.

    `out` is refused when a folder on its way is a symbolic link, before the rows are scored
    and again as the results and the manifest are written: a folder swapped for a link while
    the run scores is never written through.
    """
    if out is not None:
        refuse_linked_folders("the results", out)
    try:
        run = spec if isinstance(spec, ResolvedRun) else resolve_recorded(spec)
        manifest = build_manifest(run, given)
        store.claim(RunIdentity.of(run.spec, given), manifest, dataset)
        if (line := store.resuming(dataset.total)) is not None:
            say(line)
        store.score(run, dataset, say)
    except KeyboardInterrupt as e:
        store.abandon()
        raise Interrupted(store.kept(), dataset.total) from e
    except BaseException:
        store.abandon()
        raise
    fmt = output_format(out) if out is not None else OutputFormat.JSONL
    if out is not None:
        refuse_linked_folders("the results", out)
    summaries = store.finish(out, fmt, run.spec.scorer_ids)
    if out is not None:
        refuse_linked_folders("the manifest", manifest_path(out))
        write_manifest(manifest_path(out), manifest)
    records = list(store.records()) if keep_records else []
    failed = []
    if any(s.failed for s in summaries.values()):
        failed = first_failed(records or store.records())
    return RunOutcome(manifest=manifest, summaries=summaries, records=records, failed=failed)
