"""`score`: a dataset in (a file, rows or a DataFrame), its records and summaries out.

The one call that scores a dataset, from Python and behind `offline-recall score`: the input is
read and checked, the run resolved, its rows scored by the local runner into a run store (or on
Ray into a folder of shards), resuming what the store holds, and the results written. `RunPlan`
is the same in steps, for the command line, which prints between them: the input opened and
checked (`RunPlan.open`), the run resolved (`plan.run`), then scored (`plan.score`).

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
from typing import TYPE_CHECKING, Any, Literal, cast

from ..engines import AUTO
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError, DatasetError
from ..scorer.registry import RECALL
from .dataset_scores import DatasetScores

if TYPE_CHECKING:
    import pandas

    from ..data.dataset import Dataset
    from .claim_cache import ClaimCache
    from .execute import RunOutcome
    from .local import RunProgress
    from .manifest import InputSpec
    from .ray_workers import RayOptions
    from .resolve import ResolvedRun
    from .results import ItemRecord

Progress = Callable[[int, int], AbstractContextManager[Any]]
"""A progress display: made with the run's total rows and the rows held from before, and
entered while rows are scored. The local runner tells it as a `RunProgress` (each window, rows
done, each scorer's stages), Ray as a `ShardProgress` (each committed shard's rows)."""

ROWS_FILE = "rows.jsonl"
"""The JSON Lines file that rows given in memory are written to, in a temporary folder when
the run writes no results."""


def rows_path(out: Path) -> Path:
    """Where a run writing `out` keeps the rows it was given in memory: `<out>.input.jsonl`."""
    return out.with_name(out.name + ".input.jsonl")


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


def score(
    data: str | os.PathLike[str] | Sequence[Mapping[str, Any]] | pandas.DataFrame,
    *,
    scorers: str | Sequence[str] = RECALL,
    model: str = DEFAULT_MODEL,
    backend: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    scale: float = 1.0,
    judge_model: str | None = None,
    judge_backend: str | None = None,
    map: Mapping[str, str] | None = None,
    context_sep: str | None = None,
    delimiter: str | None = None,
    out: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    resume: bool = True,
    cache: bool | ClaimCache = True,
    runner: Literal["local", "ray"] = "local",
    ray: RayOptions | None = None,
    shards: str | os.PathLike[str] | None = None,
    merge: bool = True,
    progress: Progress | None = None,
) -> DatasetScores:
    """Score a dataset with one or more scorers in one pass: what `offline-recall score` does,
    with the same options under the same names, and the same records byte for byte.

    `data` is a file (.jsonl, .ndjson, .json, .csv or .parquet), a list of rows (dicts), or a
    pandas DataFrame (one row per item; a missing cell is left out of its row). Field names of
    Mastra (`groundTruth`), RAGAS (`user_input`, `reference`, `retrieved_contexts`,
    `response`, or `question`, `ground_truth`, `contexts`, `answer`) and offline-recall
    (`ground_truth`, `context`) are detected; `map` names any other column
    (`{"context": "chunks"}`, as `--map context=chunks`). Rows given in memory are written as
    JSON Lines first, one a line in their order (a row's `line` is its position from 1): to
    `<out>.input.jsonl` beside `out`, which the manifest names and a later run resumes from, or
    to a temporary folder, removed when the run ends, when there is no `out`.

    `scorers` are scorer ids (`offline-recall scorers` lists them; comma-separated in one
    string, or a list). `model` is a bundled model's name or a manifest path, run by `backend`
    (`auto`, `fake`, `transformers`, `vllm`, `openai`, ...) with `engine_options` (what `-o
    KEY=VALUE` gives, e.g. `{"device": "cuda"}`); `judge_model` (on `judge_backend`) judges
    while `model` extracts. `scale` multiplies every score. `context_sep` splits a CSV or
    Parquet context cell at that text; `delimiter` is a CSV file's cell delimiter.

    `out` is the results file (JSON Lines, or Parquet by its extension), with its manifest
    beside it and, for the local runner, the run store `<out>.run.sqlite` (or `store`): rows are
    committed as they are scored, and the same call after an interruption scores only the rest
    (`resume=False` discards the store and scores every row again). Without `out` nothing is
    written and the records are held in memory. `cache` keeps extracted claims in the claim
    cache (`False`: none; a `ClaimCache`: that one). `runner="ray"` scores on Ray Data (`ray`:
    its `RayOptions`), its shards in `shards` (default `<out>.shards`), merged into `out` unless
    `merge=False`. `progress` shows the run as it goes (see `Progress`).

    A row that cannot be scored is recorded with status `error` and its reason, and the others
    are scored; the call raises (an `OfflineRecallError` saying what to do) only when no row
    can be scored, or before any is, for an input or an option it cannot use.
    """
    options = ScoreOptions(
        scorers=tuple(_scorer_ids(scorers)),
        model=model,
        backend=backend,
        engine_options=dict(engine_options or {}),
        scale=scale,
        judge_model=judge_model,
        judge_backend=judge_backend,
        map=dict(map or {}),
        context_sep=context_sep,
        delimiter=delimiter,
        out=None if out is None else Path(out),
        store=None if store is None else Path(store),
        resume=resume,
        cache=cache,
        runner=runner,
        ray=ray,
        shards=None if shards is None else Path(shards),
        merge=merge,
    )
    with RunPlan.open(data, options) as plan:
        return plan.score(progress)


def _scorer_ids(scorers: str | Sequence[str]) -> list[str]:
    """Scorer ids from a list, or a comma-separated string; each known, none twice."""
    from ..scorer.registry import scorer_kind

    given = scorers.split(",") if isinstance(scorers, str) else list(scorers)
    ids = list(dict.fromkeys(s.strip() for s in given if s.strip()))
    if not ids:
        raise ConfigurationError("name at least one scorer")
    for sid in ids:
        scorer_kind(sid)  # an unknown id lists the known ones
    return ids


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
            self.dataset = _opened(path, options, mapping)
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
            _write_rows(path, content)
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
        from . import resolve

        o = self.options
        return resolve.resolve_run(
            o.model,
            engine=o.backend,
            engine_options=o.engine_options,
            scorers=o.scorers,
            scale=o.scale,
            judge_model=o.judge_model,
            judge_engine=o.judge_backend,
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
        from .manifest import InputSpec
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


def _write_rows(path: Path, content: bytes) -> None:
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


def _opened(path: Path, options: ScoreOptions, mapping: dict[str, str]) -> Dataset:
    """The dataset at `path`, refused (one line, before any model) when it holds no rows, or
    none that can be scored, or no row holds a field a scorer of the run reads."""
    from ..data.dataset import open_dataset
    from ..scorer.registry import reads_context

    name, scorers = path.name, list(options.scorers)
    dataset = open_dataset(
        path,
        mapping,
        options.context_sep,
        context_required=reads_context(scorers),
        delimiter=options.delimiter,
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
