"""The local runner behind `offline-recall score`: rows in windows, each window committed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Protocol

from ..data.dataset import Dataset, Row, RowError
from ..data.version import InputChanged
from ..scorer.results import Progress, ScoreResult, ScorerInput
from .claim_cache import ClaimCache
from .execute import Say
from .resolve import ResolvedRun
from .results import ItemRecord, OutputFormat
from .run_manifest import RunIdentity, RunManifest
from .session import Scoring, session
from .store import RunStore
from .summary import Summary, windows


class RunProgress(Protocol):
    """Told how a run is going: its size, each window as it starts, rows done, and each
    scorer's stages inside a window."""

    def begin(self, total: int, done: int) -> None: ...

    def window(self, rows: int) -> None: ...

    def rows(self, done: int) -> None: ...

    def stage(self, scorer: str, stage: str, done: int, total: int) -> None: ...


def _stages(progress: RunProgress | None, scorer: str) -> Progress | None:
    """What tells `progress` how the stages of `scorer` go."""
    if progress is None:
        return None
    told = progress

    def stage(name: str, done: int, total: int) -> None:
        told.stage(scorer, name, done, total)

    return stage


def score_window(
    scoring: Scoring,
    rows: Sequence[Row | RowError],
    spec_digest: str | None,
    progress: RunProgress | None = None,
) -> list[ItemRecord]:
    """Each row's record with every scorer's result; a row error is each scorer's error result,
    without a model call. Every scorer scores the window in one pass, telling `progress` (if
    any) how its stages go; the records are made before any is handed on."""
    runs = [
        ScorerInput(input=r.input, output=r.output, ground_truth=r.ground_truth, context=r.context)
        for r in rows
        if isinstance(r, Row)
    ]
    scored: dict[str, Iterator[ScoreResult]] = {}
    for sid, scorer in scoring.scorers.items():
        scored[sid] = iter(scorer.run_many(runs, progress=_stages(progress, sid)))
    return [
        ItemRecord.of(
            r,
            {
                sid: scoring.scorers[sid].error_result(r.error)
                if isinstance(r, RowError)
                else next(found)
                for sid, found in scored.items()
            },
            spec_digest,
        )
        for r in rows
    ]


class LocalRunner:
    """The local runner's side of a run (see `execute.run_dataset`): rows scored here in
    windows, each window committed to `store`.

    `progress`, a context manager, is entered while the engine loads and the rows are scored,
    and told how they go. Claims are kept in `claim_cache` when one is given.
    """

    def __init__(
        self,
        store: RunStore,
        progress: AbstractContextManager[RunProgress] | None = None,
        claim_cache: ClaimCache | None = None,
    ) -> None:
        self._store = store
        self._progress = progress
        self._claim_cache = claim_cache
        self._discarded = False

    def claim(self, identity: RunIdentity, manifest: RunManifest, dataset: Dataset) -> None:
        self._store.claim(identity)
        self._store.set_manifest(manifest)

    def resuming(self, total: int) -> str | None:
        stored = len(self._store.done())
        retried = self._store.retried()
        if not stored and not retried:
            return None
        held = f"resuming: {stored} of {total} rows are in the store {self._store.path}"
        if retried:
            held += f" ({retried} more failed for a transient engine error: scored again)"
        if stored >= total:
            return f"{held}; none is left to score, writing the results"
        return f"{held}; scoring the other {total - stored}"

    def score(self, run: ResolvedRun, dataset: Dataset, say: Say) -> None:
        """Score the rows the store does not hold yet, committing one window at a time. The
        progress is told the rows done so far (stored earlier ones included) after each
        window, each window as it starts, and each scorer's stages inside it."""
        done = self._store.done()
        if len(done) >= dataset.total:
            return  # every row is in the store: no model is loaded
        with self._progress or nullcontext() as bar:
            scoring = session(run, claim_cache=self._claim_cache)
            try:
                pending = (r for r in dataset.rows() if r.line not in done)
                if bar is not None:
                    bar.begin(dataset.total, len(done))
                scored = len(done)
                for window in windows(pending, scoring.window):
                    if bar is not None:
                        bar.window(len(window))
                    records = score_window(scoring, window, run.spec.digest, bar)
                    self._store.add(records)
                    scored += len(window)
                    if bar is not None:
                        bar.rows(scored)
            except InputChanged as e:
                self._store.spoil(e.change)  # rows committed may be the changed file's
                raise
            finally:
                scoring.close()

    def abandon(self) -> None:
        store = self._store
        if store.created and store.path is not None and not store.done():
            store.discard()
            self._discarded = True

    def kept(self) -> int:
        return 0 if self._discarded else len(self._store.done())

    def finish(
        self, out: Path | None, fmt: OutputFormat, scorer_ids: list[str]
    ) -> dict[str, Summary]:
        if out is not None:
            self._store.export(out, fmt, scorer_ids)
        return self._store.summaries()

    def records(self) -> Iterator[ItemRecord]:
        return self._store.records()
