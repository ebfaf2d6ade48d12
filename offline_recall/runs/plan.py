"""A run planned: the input opened and checked, the run resolved, then scored. `score` in
steps, for the command line, which prints between them: `RunPlan.open` reads and checks the
input (`input.open_input`), `plan.run` resolves the run, `plan.score` scores it on the local
runner or Ray into `DatasetScores`.

Each module is imported where it is first needed, so that an input refused before scoring
starts costs only the reading of it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..engines import AUTO
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError, DatasetError
from ..scorer.registry import RECALL
from .dataset_scores import DatasetScores
from .input import ROWS_FILE, open_input, rows_path, write_rows

if TYPE_CHECKING:
    from .claim_cache import ClaimCache
    from .execute import RunOutcome
    from .local import RunProgress
    from .ray_workers import RayOptions
    from .resolve import ResolvedRun
    from .results import ItemRecord
    from .run_manifest import InputSpec

Progress = Callable[[int, int], AbstractContextManager[Any]]
"""A progress display: made with the run's total rows and the rows held from before, and
entered while rows are scored. The local runner tells it as a `RunProgress` (each window, rows
done, each scorer's stages), Ray as a `ShardProgress` (each committed shard's rows)."""


def _silent(_: str) -> None:
    pass


@dataclass(frozen=True)
class ScoreOptions:
    """What `score` takes besides the data (see `score` for each)."""

    scorers: tuple[str, ...] = (RECALL,)
    model: str = DEFAULT_MODEL
    backend: str = AUTO
    engine_options: Mapping[str, Any] = field(default_factory=dict)
    scale: float = 1.0
    judge_model: str | None = None
    judge_backend: str | None = None
    map: Mapping[str, str] = field(default_factory=dict)
    context_sep: str | None = None
    delimiter: str | None = None
    out: Path | None = None
    store: Path | None = None
    resume: bool = True
    cache: bool | ClaimCache = True
    runner: str = "local"
    ray: RayOptions | None = None
    shards: Path | None = None
    merge: bool = True


class RunPlan:
    """A dataset opened and checked for a run (`open`), the run it makes resolved when first
    asked (`run`), and the run scored (`score`): `score` in steps, the command line printing
    between them. Close it (or use it in a `with` block) to remove a temporary rows file."""

    def __init__(
        self,
        options: ScoreOptions,
        path: Path,
        mapping: dict[str, str],
        temporary: tempfile.TemporaryDirectory[str] | None = None,
    ) -> None:
        self.options = options
        self.path = path
        """The file the rows are read from (rows given in memory are written to one)."""
        self.mapping = mapping
        """`options.map` checked: which column each field is read from."""
        self._temporary = temporary
        try:
            self.dataset = open_input(
                path, options.scorers, mapping, options.context_sep, options.delimiter
            )
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(
        cls,
        data: Any,
        options: ScoreOptions,
        *,
        also_writes: Sequence[tuple[str, Path]] = (),
    ) -> RunPlan:
        """The input read and checked before any model is resolved: the options refused that
        cannot go together, every file the run writes (and `also_writes`, a log beside the
        results) refused where it would replace an input or another output, and the input
        refused when it holds no row that can be scored or lacks a field a scorer reads."""
        from ..data.fields import parse_mapping
        from ..data.rows_file import frame_rows, is_frame, jsonl_bytes
        from ..scorer.results import check_scale

        _check_runner(options)
        check_scale(options.scale)
        mapping = parse_mapping([f"{k}={v}" for k, v in options.map.items()])
        if isinstance(data, str | os.PathLike):
            path = Path(data)
            cls._check_writes(options, also_writes, {str(data): path})
            return cls(options, path, mapping)
        if isinstance(data, bytes) or not (is_frame(data) or isinstance(data, Sequence)):
            raise ConfigurationError(
                f"data is {type(data).__name__}: give a file's path, a list of rows (dicts) or "
                "a pandas DataFrame"
            )
        content = jsonl_bytes(frame_rows(data) if is_frame(data) else data)
        if not content:
            raise DatasetError("no rows given: nothing to score")
        temporary = None
        if options.out is not None:
            path = rows_path(options.out)
            given = [*also_writes, ("the rows beside --out", path)]
            cls._check_writes(options, given, {})
        else:
            cls._check_writes(options, also_writes, {})
            temporary = tempfile.TemporaryDirectory(prefix="offline-recall-")
            path = Path(temporary.name) / ROWS_FILE
        try:
            write_rows(path, content)
        except BaseException:
            if temporary is not None:
                temporary.cleanup()
            raise
        return cls(options, path, mapping, temporary)

    @staticmethod
    def _check_writes(
        options: ScoreOptions, also: Sequence[tuple[str, Path]], inputs: dict[str, Path]
    ) -> None:
        """Refuse a file the run writes that is an input (the data, the models' files) or
        another output."""
        from ..data.destinations import check_destinations
        from ..engines.weights import model_files
        from .store import manifest_path, store_files

        paths: list[tuple[str, Path]] = []
        if options.out is not None:
            paths += [
                ("--out", options.out),
                ("the manifest beside --out", manifest_path(options.out)),
            ]
        paths += also
        store = _store_path(options)
        if store is not None:
            files = store_files(store)
            paths += [("--store", store)]
            paths += [(f"the {what}", path) for what, path in files.items() if path != store]
        reads = inputs | model_files("--model", options.model)
        check_destinations(paths, reads | model_files("--judge-model", options.judge_model))

    @property
    def store(self) -> Path | None:
        """The local runner's run store; None on Ray, or when it keeps none (no `out`)."""
        return _store_path(self.options)

    @property
    def shards(self) -> Path | None:
        """Ray's folder of shards; None on the local runner."""
        from .shard_folder import default_shards_path

        options = self.options
        if options.runner != "ray":
            return None
        return options.shards or default_shards_path(options.out or Path("results.jsonl"))

    @cached_property
    def run(self) -> ResolvedRun:
        """The run the options make, resolved once (manifests read, a server asked what it
        serves): nothing is loaded."""
        from .session import resolve

        o = self.options
        return resolve(
            o.scorers,
            model=o.model,
            backend=o.backend,
            engine_options=o.engine_options,
            scale=o.scale,
            judge_model=o.judge_model,
            judge_backend=o.judge_backend,
        )

    def score(
        self, progress: Progress | None = None, say: Callable[[str], None] = _silent
    ) -> DatasetScores:
        """Score the rows the store does not hold yet, write the results, and say (`say`)
        what a resumed run holds and where it scores; `progress` shows it as it goes.
        Stopped from the keyboard, it raises `execute.Interrupted`."""
        from .claim_cache import ClaimCache
        from .execute import run_dataset
        from .local import LocalRunner
        from .run_manifest import InputSpec
        from .store import RunStore

        o, dataset, path = self.options, self.dataset, self.store
        given = InputSpec.of(self.path, self.mapping, o.context_sep, dataset.sha256, o.delimiter)
        if o.runner == "ray":
            return self._on_ray(given, progress, say)
        # Scored here, not in a method of its own: the way from the command to the engine stays
        # one call longer than the run itself.
        cache = ClaimCache() if o.cache is True else o.cache or None
        try:
            with RunStore(path, restart=not o.resume) as store:
                told = None if progress is None else progress(dataset.total, len(store.done()))
                bar = cast("AbstractContextManager[RunProgress] | None", told)
                local = LocalRunner(store, bar, cache)
                outcome = run_dataset(
                    self.run, dataset, given, local, o.out, keep_records=path is None, say=say
                )
        finally:
            if o.cache is True and cache is not None:
                cache.close()
        kept = outcome.records
        records = (lambda: iter(kept)) if path is None else (lambda: _stored(path))
        return self._scores(outcome, path, records)

    def _on_ray(
        self, given: InputSpec, progress: Progress | None, say: Callable[[str], None]
    ) -> DatasetScores:
        from .execute import run_dataset
        from .ray_shards import ShardRunner
        from .ray_workers import RayOptions
        from .shard_folder import ShardFolder

        o = self.options
        assert self.shards is not None
        ray = o.ray or RayOptions()
        if o.cache is False:
            ray = ray.model_copy(update={"claim_cache": False})
        folder = ShardFolder(self.shards)
        runner = ShardRunner(folder, ray, restart=not o.resume, progress=progress)
        target = o.out if o.merge else None
        outcome = run_dataset(self.run, self.dataset, given, runner, target, say=say)
        if target is None:
            say(f"shards: {folder.path}")
        return self._scores(outcome, folder.path, runner.records)

    def _scores(
        self, outcome: RunOutcome, store: Path | None, records: Callable[[], Iterator[ItemRecord]]
    ) -> DatasetScores:
        from .store import manifest_path

        out = self.options.out if self.options.merge else None
        found = outcome.summaries
        return DatasetScores(
            spec=self.run.spec,
            manifest=outcome.manifest,
            summaries={s: found[s] for s in self.run.spec.scorer_ids if s in found},
            total=self.dataset.total,
            failed=outcome.failed,
            out=out,
            manifest_path=None if out is None else manifest_path(out),
            store=store,
            _records=records,
        )

    def close(self) -> None:
        """Remove the temporary rows file, if the rows were written to one."""
        if self._temporary is not None:
            self._temporary.cleanup()
            self._temporary = None

    def __enter__(self) -> RunPlan:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _check_runner(options: ScoreOptions) -> None:
    if options.runner not in ("local", "ray"):
        raise ConfigurationError(f"runner {options.runner!r}: give 'local' or 'ray'")
    if options.runner == "local" and (
        options.ray is not None or options.shards is not None or not options.merge
    ):
        raise ConfigurationError("ray, shards and merge=False need runner='ray'")
    if options.runner == "ray" and options.store is not None:
        raise ConfigurationError("--store is the local runner's; on Ray give --shards DIR")


def _store_path(options: ScoreOptions) -> Path | None:
    from .store import default_store_path

    if options.runner == "ray":
        return None
    if options.store is None and options.out is not None:
        return default_store_path(options.out)
    return options.store


def _stored(path: Path) -> Iterator[ItemRecord]:
    """The records a run store holds, in line order, the store opened only to read them."""
    from .store import RunStore

    with RunStore(path, read_only=True) as store:
        yield from store.records()
