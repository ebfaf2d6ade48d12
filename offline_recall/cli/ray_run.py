"""`score --runner ray`: its options, and the run on Ray Data with a progress bar."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from ..data.dataset import Dataset
from ..data.shards import plan_shards
from ..engines import engine_kind
from ..runs.manifest import InputSpec, RunIdentity, RunManifest
from ..runs.ray_runner import RayOptions, require_ray, score_shards
from ..runs.results import ItemRecord, OutputFormat, output_format
from ..runs.shard_store import ShardFolder, default_shards_path
from ..runs.spec import RunSpec
from ..runs.store import manifest_path, write_manifest
from ..runs.summary import Summary
from . import progress

F = TypeVar("F", bound=Callable[..., Any])
SHARDS_PER_WORKER = 4
"""Shards cut per worker at least, so that workers finish close together."""
MAX_WINDOWS = 16
"""A shard holds at most this many of the engine's windows: the work a killed worker loses."""


@dataclass(frozen=True)
class Runner:
    """Where `score` runs: here, or on Ray (with how, and where its shards go)."""

    ray: RayOptions | None = None
    shards: Path | None = None
    merge: bool = True


def runner_options(command: F) -> F:
    """`--runner local|ray` and the Ray run's options, given to the command as `runner`."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        name = kwargs.pop("runner")
        options = {k: kwargs.pop(k) for k in ("ray_address", "workers", "gpus", "cpus")}
        shards, merge = kwargs.pop("shards"), kwargs.pop("merge")
        ray = None
        if name == "ray":
            ray = RayOptions(
                address=options["ray_address"],
                workers=options["workers"],
                gpus_per_worker=options["gpus"],
                cpus_per_worker=options["cpus"],
                claim_cache=not kwargs["no_cache"],
            )
        elif shards is not None or not merge or options["ray_address"] is not None:
            raise click.ClickException("--shards, --no-merge and --ray-address need --runner ray")
        return command(*args, runner=Runner(ray=ray, shards=shards, merge=merge), **kwargs)

    for option in reversed(
        [
            click.option(
                "--runner",
                type=click.Choice(["local", "ray"]),
                default="local",
                show_default=True,
                help="Score here, or on Ray Data (pip install 'offline-recall[ray]').",
            ),
            click.option(
                "--ray-address",
                default=None,
                metavar="auto|ray://HOST:PORT",
                help="Ray: the cluster to join [default: RAY_ADDRESS, else a local Ray].",
            ),
            click.option(
                "--workers",
                type=click.IntRange(min=1),
                default=1,
                show_default=True,
                help="Ray: scoring workers, each with its own engine.",
            ),
            click.option(
                "--gpus-per-worker",
                "gpus",
                type=click.FloatRange(min=0),
                default=0,
                show_default=True,
                help="Ray: GPUs each worker holds (set the engine's device too, -o device=cuda).",
            ),
            click.option(
                "--cpus-per-worker",
                "cpus",
                type=click.FloatRange(min=0),
                default=1,
                show_default=True,
                help="Ray: CPUs each worker holds.",
            ),
            click.option(
                "--shards",
                type=click.Path(file_okay=False, path_type=Path),
                default=None,
                help="Ray: the folder of committed shards that makes the run resumable, on "
                "storage every node reaches [default: <out>.shards].",
            ),
            click.option(
                "--no-merge",
                "merge",
                is_flag=True,
                default=True,
                flag_value=False,
                help="Ray: keep the results as Parquet shards only; no single --out file.",
            ),
        ]
    ):
        wrapper = option(wrapper)
    return wrapper  # type: ignore[return-value]


def shard_size(total: int, window: int, workers: int) -> int:
    """Records per shard: SHARDS_PER_WORKER shards per worker at least, of whole engine windows
    (at most MAX_WINDOWS) when there are rows enough, else of fewer rows so that every worker
    still gets some."""
    per_worker = -(-total // (workers * SHARDS_PER_WORKER))
    if per_worker < window:
        return max(1, per_worker)
    return window * min(MAX_WINDOWS, -(-per_worker // window))


class _ShardBar:
    """Rows scored (committed shards), and rows per second since scoring began: a live bar on
    a terminal, else (a pipe, a CI log) a plain line at the start, at most every
    `progress.EVERY` seconds as shards commit, and at the end."""

    def __init__(self, console: Console, total: int, done: int) -> None:
        self._console, self._total, self._done = console, total, done
        self._live = console.is_terminal
        self._printed: float | None = None
        self._progress = Progress(
            TextColumn("rows scored"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self._progress.add_task("", total=total, completed=done, rate="")
        self._started = time.perf_counter()
        self._scored = 0

    def __enter__(self) -> _ShardBar:
        if self._live:
            self._progress.__enter__()
        else:
            self._line()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live:
            self._progress.__exit__(None, None, None)
        else:
            self._line()

    def shard(self, rows: int) -> None:
        self._scored += rows
        self._done += rows
        rate = self._scored / max(time.perf_counter() - self._started, 1e-9)
        self._progress.update(self._task, advance=rows, rate=f"{rate:.1f} rows/s")
        if not self._live and (
            self._printed is None or time.perf_counter() - self._printed >= progress.EVERY
        ):
            self._line()

    def _line(self) -> None:
        self._printed = now = time.perf_counter()
        rate = self._scored / max(now - self._started, 1e-9)
        self._console.print(
            f"rows scored {self._done}/{self._total}, {rate:.1f} rows/s, "
            f"{now - self._started:.0f} s",
            soft_wrap=True,
        )


def score_on_ray(
    runner: Runner,
    spec: RunSpec,
    dataset: Dataset,
    given: InputSpec,
    manifest: RunManifest,
    out: Path | None,
    form: str,
    restart: bool,
    console: Console,
) -> tuple[dict[str, Summary], list[ItemRecord]]:
    """Score `dataset` on Ray into its shard folder, then write `out` from the shards (unless
    --no-merge). Returns each scorer's summary, and every record when `form` is a table."""
    assert runner.ray is not None
    require_ray()  # before anything is written: a missing extra leaves nothing behind
    folder = ShardFolder(runner.shards or default_shards_path(out or Path("results.jsonl")))
    if restart:
        folder.clear()
    fresh = not folder.committed()
    window = engine_kind(spec.engine.name).window
    size = folder.claim(
        RunIdentity.of(spec, given), shard_size(dataset.total, window, runner.ray.workers)
    )
    folder.set_manifest(manifest)
    plan = plan_shards(dataset, size)
    committed = folder.committed()
    pending = [s for s in plan.shards if s.index not in committed]
    done = sum(s.records for s in plan.shards if s.index in committed)
    if done:
        console.print(
            f"resuming: {done} of {dataset.total} rows are in {len(committed)} committed shards "
            f"in {folder.path}; " + ("scoring the rest" if pending else "writing the results")
        )
    if pending:
        workers = f"{runner.ray.workers} worker{'s' if runner.ray.workers > 1 else ''}"
        console.print(f"on Ray: {len(pending)} shards of up to {size} rows for {workers}")
    try:
        with _ShardBar(console, dataset.total, done) as bar:
            score_shards(spec, dataset, plan, pending, folder, runner.ray, bar.shard, quiet=True)
    except BaseException:
        if fresh and not folder.committed():
            folder.clear()  # a run that could not start leaves nothing behind
        raise
    target = out if runner.merge else None
    fmt = output_format(out) if out is not None else OutputFormat.JSONL
    summaries = folder.export(len(plan.shards), target, fmt, spec.scorer_ids)
    if target is not None:
        write_manifest(manifest_path(target), manifest)
    else:
        console.print(f"shards: {folder.path}")
    shown = list(folder.records(len(plan.shards))) if form == "table" else []
    return summaries, shown
