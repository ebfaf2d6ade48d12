"""The progress a run shows: rows done, their pace and the time left, and what each scorer is
doing inside a window.

On a terminal it is a live bar (rich); anywhere else (a pipe, a CI log) it is a plain line
now and then, so that a log shows a long run moving."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from ..scorer.registry import scorer_kind

EVERY = 10.0
"""Seconds between two plain progress lines (in a pipe or a CI log)."""

LOADING = "loading the model"


CHUNK_CHECKS = "chunk checks"
"""What the verdicts of a scorer of claims are counted as while it runs: one claim judged
against one chunk (a claim is supported when one of its chunks supports it)."""


def stage_words(scorer: str, stage: str) -> str:
    """A stage as the progress names it: the verdicts of a scorer that judges claims against
    the context are its chunk checks (claim x chunk pairs), which the summary's claims are not."""
    kind = scorer_kind(scorer)
    return CHUNK_CHECKS if stage == kind.judged and kind.separate_judge else stage


def _stage_text(scorer: str, stage: str, done: int, total: int) -> str:
    return f"{scorer_kind(scorer).measure}: {stage_words(scorer, stage)} {done}/{total}"


def _window_text(first: int, rows: int) -> str:
    return f"rows {first}-{first + rows - 1}" if rows > 1 else f"row {first}"


def duration(seconds: float) -> str:
    """A time span as a person reads it: `45 s`, `12 min`, `2 h 05 min`."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


ESTIMATING = "estimating"
"""What the progress says for the time left while no measured rate gives it: before the first
work is measured, and when the work in progress has outrun the rate measured so far."""


def rate_text(scored: int, seconds: float) -> str | None:
    """`scored` rows in `seconds` as rows per second; None before any row."""
    if scored <= 0 or seconds <= 0:
        return None
    rate = scored / seconds
    return f"{rate:.2f} rows/s" if rate < 1 else f"{rate:.1f} rows/s"


def left_text(seconds: float | None) -> str:
    """The time left as the progress says it: `about 45 s left`, never less than a second
    while work remains, or `estimating` (None: no measured rate gives it)."""
    return ESTIMATING if seconds is None else f"about {duration(max(seconds, 1.0))} left"


def pace(scored: int, seconds: float, left: int | None) -> str | None:
    """`scored` rows in `seconds` as rows per second, and the time the `left` rows take at
    that rate; None before any row."""
    rate = rate_text(scored, seconds)
    if rate is None or not left:
        return rate
    return f"{rate}, {left_text(left * seconds / scored)}"


@dataclass(frozen=True)
class _Verdicts:
    """The verdict stage of the window in progress: when it began, and when it last told how
    many of its `total` verdicts were `done`."""

    began: float
    told: float
    done: int
    total: int

    def left(self, now: float) -> float | None:
        """Seconds its verdicts left take at the pace of those done, counted down since it
        last told; 0 once all are done; None before the first verdict is measured, or once
        the count-down has run out with verdicts left (the pace measured was too fast)."""
        if self.done >= self.total:
            return 0.0
        if self.done <= 0 or self.told <= self.began:
            return None
        left = (self.total - self.done) * (self.told - self.began) / self.done - (now - self.told)
        return left if left > 0 else None


class _PaceColumn(ProgressColumn):
    """The rows' pace and the time left, read from the bar when the display refreshes, so the
    time left counts down between commits."""

    def __init__(self, bar: RunBar) -> None:
        super().__init__()
        self._bar = bar

    def render(self, task: Task) -> Text:
        return Text((self._bar.pace() or "") if task.id == self._bar.rows_task else "")


class RunBar:
    """What a run is doing, shown as it goes: rows scored, and below them the stage of the
    window in progress (the model loading, ground truths extracted, verdicts judged), so the
    display moves inside a window long before its rows are committed. Until the first rows
    are committed, the time left is estimated from the verdicts of the first window: a slow
    judge's first window can take minutes.

    A live bar on a terminal; elsewhere a plain line at the start, then one every `every`
    seconds (also while one long step gives no news, so a log never looks stalled), and a
    last line at the end. `first` is the step shown before any window: the model loading,
    unless the run asks none. `done` is the rows a resumed run holds already: its first line
    counts them.
    """

    def __init__(
        self,
        console: Console,
        total: int | None = None,
        what: str = "rows scored",
        *,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        first: str = LOADING,
        done: int = 0,
    ) -> None:
        self._console = console
        self._what = what
        self._live = console.is_terminal
        self._every = EVERY if every is None else every
        self._clock = clock
        self._started = clock()
        self._printed: float | None = None
        self._total = total
        self._done = done
        self._first = 1
        self._window = 0
        self._stage = first
        self._shown: tuple[int, str] | None = None
        self._window_began = 0.0
        self._verdicts: _Verdicts | None = None
        self._begun: float | None = None
        self._working = False
        self._checks: dict[str, int] = {}
        self._counted: dict[str, int] = {}  # each scorer's count in its verdict stage so far
        self._done_before = 0
        self._committed = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, daemon=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _PaceColumn(self),
            TimeElapsedColumn(),
            console=console,
        )
        self._rows: TaskID = self._progress.add_task(what, total=total, completed=done)
        self._step: TaskID = self._progress.add_task(f"  {first}", total=None)

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
                if self._shown != (self._done, self._stage):  # never the same line again
                    self._line()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self._every):
            self._tell()

    def begin(self, total: int, done: int) -> None:
        """The run has `total` rows, `done` of them scored before; the pace is measured from
        the first window's start (the first work, the engine loaded), over the rows scored
        from here."""
        self._total = total
        self._begun, self._done_before = self._clock(), done
        self._working = False
        self._progress.update(self._rows, total=total)
        self.rows(done)

    @property
    def rows_task(self) -> TaskID:
        return self._rows

    def scoring(self) -> tuple[int, float] | None:
        """The rows scored by this run and the seconds they took, from the first window's start
        to the last commit (the engine's load left out); None before any row is committed."""
        scored = self._done - self._done_before
        if self._begun is None or scored <= 0:
            return None
        return scored, self._committed - self._begun

    def checks(self) -> dict[str, int]:
        """The verdicts each scorer's judge stage counted in this run: a scorer of claims
        against the context counts its chunk checks."""
        return dict(self._checks)

    def pace(self) -> str | None:
        """Rows per second since the first work began, and about how long the rest take (or
        `estimating`, while no measured rate tells it); None before the first work begins."""
        if self._begun is None:
            return None
        done = self.scoring()
        rate = None if done is None else rate_text(*done)
        if rate is None and not self._working:
            return None  # the model is loading
        if self._total is not None and self._done >= self._total:
            return rate
        return left_text(self._left()) if rate is None else f"{rate}, {left_text(self._left())}"

    def _left(self) -> float | None:
        """Seconds the rest of the run takes, from the work measured so far: the rows committed
        (their seconds a row, counted down since the last commit) and the verdicts of the
        window in progress (their pace, with the time its claim lists took); the larger where
        both tell. None where neither does, or where the work in progress outran them."""
        if self._total is None:
            return None
        now = self._clock()
        after = max(self._total - self._done - self._window, 0)
        verdicts = None if self._verdicts is None else self._verdicts.left(now)
        by_window = None
        if verdicts is not None and self._window and self._verdicts is not None:
            window = now - self._window_began + verdicts  # the time it took and will take
            by_window = verdicts + after * window / self._window
        done = self.scoring()
        if done is None:
            return by_window if by_window else None
        scored, seconds = done
        by_rows = (self._total - self._done) * seconds / scored - (now - self._committed)
        left = max(by_rows, by_window or 0.0)
        return left if left > 0 else None

    def window(self, rows: int) -> None:
        """A window of `rows` rows, the next ones after those done, starts (the first one: the
        pace is measured from here)."""
        now = self._clock()
        if not self._working:
            self._begun, self._working = now, True
        self._first, self._window = self._done + 1, rows
        self._window_began, self._verdicts = now, None

    def rows(self, done: int) -> None:
        self._done = done
        self._committed = self._clock()
        self._progress.update(self._rows, completed=done)
        self._tell()

    def stage(self, scorer: str, stage: str, done: int, total: int) -> None:
        self._stage = _stage_text(scorer, stage, done, total)
        if stage == scorer_kind(scorer).judged:
            counted = 0 if done == 0 else self._counted.get(scorer, 0)  # 0 starts a stage
            self._checks[scorer] = self._checks.get(scorer, 0) + done - counted
            self._counted[scorer] = done
            now, told = self._clock(), self._verdicts
            began = now if told is None or done == 0 else told.began
            self._verdicts = _Verdicts(began, now, done, total)
        where = f" ({_window_text(self._first, self._window)})" if self._window else ""
        self._progress.update(
            self._step,
            description=f"  {scorer_kind(scorer).measure}: {stage_words(scorer, stage)}{where}",
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
        """One plain line: rows done, their pace and the time left, the last stage, and the
        time so far."""
        now = self._clock()
        self._printed = now
        self._shown = (self._done, self._stage)
        total = "?" if self._total is None else str(self._total)
        rate = self.pace()
        paced = f", {rate}" if rate else ""
        self._console.print(
            Text(
                f"{self._what} {self._done}/{total}{paced}, {self._stage}, "
                f"{now - self._started:.0f} s"
            ),
            soft_wrap=True,
        )
