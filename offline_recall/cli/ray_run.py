"""`score --runner ray`: its options, and the progress bar of a run on Ray Data."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import gathered, number_option

if TYPE_CHECKING:
    from rich.console import Console

    from ..runs.ray_workers import RayOptions


@dataclass(frozen=True)
class RunnerChoice:
    """Where `score` runs: here, or on Ray (with how, and where its shards go)."""

    ray: RayOptions | None = None
    shards: Path | None = None
    merge: bool = True


@dataclass(frozen=True)
class RunnerOptions:
    """What `--runner` and the Ray run's options chose (see `runner_options`), in their
    order."""

    runner: str
    ray_address: str | None
    workers: int
    gpus: float
    cpus: float
    shards: Path | None
    merge: bool

    def choose(self, *, claim_cache: bool) -> RunnerChoice:
        """Where `score` runs; a Ray option without `--runner ray` is refused."""
        if self.runner != "ray":
            if self.shards is not None or not self.merge or self.ray_address is not None:
                raise click.ClickException(
                    "--shards, --no-merge and --ray-address need --runner ray"
                )
            return RunnerChoice()
        from ..runs.ray_workers import RayOptions

        ray = RayOptions(
            address=self.ray_address,
            workers=self.workers,
            gpus_per_worker=self.gpus,
            cpus_per_worker=self.cpus,
            claim_cache=claim_cache,
        )
        return RunnerChoice(ray=ray, shards=self.shards, merge=self.merge)


runner_options = gathered(
    RunnerOptions,
    "given_runner",
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
        number_option(
            "--workers", default=1, help="Ray: scoring workers, each with its own engine."
        ),
        number_option(
            "--gpus-per-worker",
            "gpus",
            real=True,
            at_least=0,
            default=0,
            help="Ray: GPUs each worker holds (set the engine's device too, -o device=cuda).",
        ),
        number_option(
            "--cpus-per-worker",
            "cpus",
            real=True,
            at_least=0,
            default=1,
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
    ],
)
"""`--runner local|ray` and the Ray run's options, given to the command as one
`given_runner: RunnerOptions`."""


class ShardBar:
    """Rows scored (committed shards), rows per second since scoring began and about how long
    the rest take: a live bar on a terminal, else (a pipe, a CI log) a plain line at the
    start, at most every `progress.EVERY` seconds as shards commit, and at the end."""

    def __init__(self, console: Console, total: int, done: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

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

    def __enter__(self) -> ShardBar:
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
        from . import progress

        self._scored += rows
        self._done += rows
        self._progress.update(self._task, advance=rows, rate=self._pace())
        if not self._live and (
            self._printed is None or time.perf_counter() - self._printed >= progress.EVERY
        ):
            self._line()

    def _pace(self) -> str:
        """Rows per second since scoring began, and about how long the rest take."""
        from . import progress

        seconds = max(time.perf_counter() - self._started, 1e-9)
        return progress.pace(self._scored, seconds, self._total - self._done) or progress.ESTIMATING

    def _line(self) -> None:
        self._printed = now = time.perf_counter()
        self._console.print(
            f"rows scored {self._done}/{self._total}, {self._pace()}, {now - self._started:.0f} s",
            soft_wrap=True,
        )
