"""The progress a run shows: rows done, and what each scorer is doing inside a window.

On a terminal it is a live bar (rich); anywhere else (a pipe, a CI log) it is a plain line
now and then, so that a log shows a long run moving."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from ..scorers import scorer_kind

EVERY = 10.0
"""Seconds between two plain progress lines (in a pipe or a CI log)."""

LOADING = "loading the model"


def _stage_text(scorer: str, stage: str, done: int, total: int) -> str:
    return f"{scorer_kind(scorer).measure}: {stage} {done}/{total}"


def _window_text(first: int, rows: int) -> str:
    return f"rows {first}-{first + rows - 1}" if rows > 1 else f"row {first}"


class RunBar:
    """What a run is doing, shown as it goes: rows scored, and below them the stage of the
    window in progress (the model loading, ground truths extracted, verdicts judged), so the
    display moves inside a window long before its rows are committed.

    A live bar on a terminal; elsewhere a plain line at the start, then one every `every`
    seconds (also while one long step gives no news, so a log never looks stalled), and a
    last line at the end.
    """

    def __init__(
        self,
        console: Console,
        total: int | None = None,
        what: str = "rows scored",
        *,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._console = console
        self._what = what
        self._live = console.is_terminal
        self._every = EVERY if every is None else every
        self._clock = clock
        self._started = clock()
        self._printed: float | None = None
        self._total = total
        self._done = 0
        self._first = 1
        self._window = 0
        self._stage = LOADING
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, daemon=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._rows: TaskID = self._progress.add_task(what, total=total)
        self._step: TaskID = self._progress.add_task(f"  {LOADING}", total=None)

    def __enter__(self) -> RunBar:
        if self._live:
            self._progress.__enter__()
            return self
        if self._total is not None:
            self._tell()
        if self._every > 0:
            self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live:
            self._progress.__exit__(None, None, None)
            return
        self._stop.set()
        if self._beat.is_alive():
            self._beat.join()
        if self._total is not None:
            with self._lock:
                self._line()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self._every):
            self._tell()

    def begin(self, total: int, done: int) -> None:
        """The run has `total` rows, `done` of them scored before."""
        self._total = total
        self._progress.update(self._rows, total=total)
        self.rows(done)

    def window(self, rows: int) -> None:
        """A window of `rows` rows, the next ones after those done, starts."""
        self._first, self._window = self._done + 1, rows

    def rows(self, done: int) -> None:
        self._done = done
        self._progress.update(self._rows, completed=done)
        self._tell()

    def stage(self, scorer: str, stage: str, done: int, total: int) -> None:
        self._stage = _stage_text(scorer, stage, done, total)
        where = f" ({_window_text(self._first, self._window)})" if self._window else ""
        self._progress.update(
            self._step,
            description=f"  {scorer_kind(scorer).measure}: {stage}{where}",
            completed=done,
            total=total,
        )
        self._tell()

    def _tell(self) -> None:
        if self._live:
            return
        with self._lock:
            if self._printed is None or self._clock() - self._printed >= self._every:
                self._line()

    def _line(self) -> None:
        """One plain line: rows done, the last stage, and the time so far."""
        now = self._clock()
        self._printed = now
        total = "?" if self._total is None else str(self._total)
        self._console.print(
            Text(f"{self._what} {self._done}/{total}, {self._stage}, {now - self._started:.0f} s"),
            soft_wrap=True,
        )
