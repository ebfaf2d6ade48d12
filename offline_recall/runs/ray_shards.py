"""The Ray runner's side of a run (see `execute.run_dataset`): the dataset cut into shards, scored
by Ray workers, each shard committed to a folder as its worker finishes it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Protocol

from ..data.dataset import Dataset
from ..data.shards import Shard, ShardPlan, plan_shards
from ..data.version import InputChanged, check_unchanged
from ..engines import engine_kind
from .execute import Say
from .ray_workers import RayOptions, require_ray, score_shards
from .resolve import ResolvedRun
from .results import ItemRecord, OutputFormat
from .run_manifest import RunIdentity, RunManifest
from .shard_folder import ShardFolder
from .summary import Summary

SHARDS_PER_WORKER = 4
"""Shards cut per worker at least, so that workers finish close together."""
MAX_WINDOWS = 16
"""A shard holds at most this many of the engine's windows: the work a killed worker loses."""


def shard_size(total: int, window: int, workers: int) -> int:
    """Records per shard: SHARDS_PER_WORKER shards per worker at least, of whole engine windows
    (at most MAX_WINDOWS) when there are rows enough, else of fewer rows so that every worker
    still gets some."""
    per_worker = -(-total // (workers * SHARDS_PER_WORKER))
    if per_worker < window:
        return max(1, per_worker)
    return window * min(MAX_WINDOWS, -(-per_worker // window))


class ShardProgress(Protocol):
    """Told each committed shard's row count, on the driver."""

    def shard(self, rows: int) -> None: ...


class ShardRunner:
    """A run on Ray into `folder`; `restart` discards what the folder held first.

    `progress`, given the run's total and the rows held before, is a context manager entered
    while the shards are scored.
    """

    def __init__(
        self,
        folder: ShardFolder,
        options: RayOptions,
        *,
        restart: bool = False,
        progress: Callable[[int, int], AbstractContextManager[ShardProgress]] | None = None,
    ) -> None:
        self.folder = folder
        self._options = options
        self._restart = restart
        self._progress = progress
        self._fresh = False
        self._plan: ShardPlan | None = None
        self._size = 0

    def claim(self, identity: RunIdentity, manifest: RunManifest, dataset: Dataset) -> None:
        require_ray()  # before anything is written: a missing extra leaves nothing behind
        self.folder.check()  # never a link, never a folder of someone else's
        if self._restart:
            self.folder.clear()
        self._fresh = not self.folder.committed()
        window = engine_kind(manifest.spec.engine.name).window
        wanted = shard_size(dataset.total, window, self._options.workers)
        self._size = self.folder.claim(identity, wanted)
        self.folder.set_manifest(manifest)
        self._plan = plan_shards(dataset, self._size)

    @property
    def plan(self) -> ShardPlan:
        """How the dataset is cut into shards: the folder's own cut, known once claimed."""
        if self._plan is None:
            raise RuntimeError("the run is not claimed yet")
        return self._plan

    def _pending(self) -> tuple[list[Shard], int]:
        """The shards not committed yet (or holding a row failed for a transient engine
        error), and the rows of the others."""
        committed = self.folder.committed() - self.folder.retried()
        pending = [s for s in self.plan.shards if s.index not in committed]
        return pending, sum(s.records for s in self.plan.shards if s.index in committed)

    def resuming(self, total: int) -> str | None:
        pending, done = self._pending()
        if not done:
            return None
        return (
            f"resuming: {done} of {total} rows are in {len(self.folder.committed())} committed "
            f"shards in {self.folder.path}; "
            + ("scoring the rest" if pending else "writing the results")
        )

    def score(self, run: ResolvedRun, dataset: Dataset, say: Say) -> None:
        pending, done = self._pending()
        if pending:
            workers = self._options.workers
            say(
                f"on Ray: {len(pending)} shards of up to {self._size} rows for {workers} "
                f"worker{'s' if workers > 1 else ''}"
            )
        with self._progress(dataset.total, done) if self._progress else nullcontext() as progress:
            on_shard = None if progress is None else progress.shard
            score_shards(
                run.spec,
                dataset,
                self.plan,
                pending,
                self.folder,
                self._options,
                on_shard,
                quiet=True,
            )
        # Workers read the shards' bytes apart: the file is hashed again once they are scored.
        if pending and dataset.version is not None:
            try:
                check_unchanged(dataset.path, dataset.version)
            except InputChanged as e:
                self.folder.spoil(e.change)
                raise

    def abandon(self) -> None:
        if self._fresh and not self.folder.committed():
            self.folder.clear()  # a run that could not start leaves nothing behind

    def kept(self) -> int:
        return 0 if self._plan is None else self._pending()[1]

    def finish(
        self, out: Path | None, fmt: OutputFormat, scorer_ids: list[str]
    ) -> dict[str, Summary]:
        return self.folder.export(len(self.plan.shards), out, fmt, scorer_ids)

    def records(self) -> Iterator[ItemRecord]:
        return self.folder.records(len(self.plan.shards))
