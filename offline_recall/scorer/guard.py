"""A scorer's own code, run so that whatever it does ends as an exception of one run: an
error, an exit (`SystemExit`, `sys.exit`), a `KeyboardInterrupt` it raises itself, or a step
that runs past its time limit. The user's Ctrl-C still stops the run.

A scorer's steps for one run (`prepare`, `units`, `aggregate`) may take `step_seconds()` each
(`OFFLINE_RECALL_SCORER_TIMEOUT`, 60 s by default). The limit is an alarm signal, so it holds
where scoring runs in the main thread (the command line, a Ray worker, a script) and while no
one else uses the alarm; code that never returns to Python (one long call into a C extension)
is stopped when it returns. The stages of a batch that call the model (`generate`, judging)
are bounded by the engine's own limits, not this one.

A `KeyboardInterrupt` is the user's when the interrupt signal (SIGINT) came while the guard
was on: the guard's handler notes it before Python raises it, so one the scorer raised itself
is told apart, and one the scorer swallowed is raised again when its step returns. Outside
the main thread no signal is delivered, so a `KeyboardInterrupt` there is always the code's.
"""

from __future__ import annotations

import math
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, TypeVar

from ..errors import ConfigurationError

T = TypeVar("T")

TIMEOUT_VARIABLE = "OFFLINE_RECALL_SCORER_TIMEOUT"
"""The environment variable that sets `step_seconds`."""
STEP_SECONDS = 60.0
"""Seconds a scorer's step for one run may take by default."""
_AGAIN = 1.0
"""Seconds between further alarms when a step catches the first one and goes on."""


def step_seconds() -> float:
    """Seconds a scorer's step for one run may take: `OFFLINE_RECALL_SCORER_TIMEOUT` when set
    (a positive number of seconds), else `STEP_SECONDS`."""
    given = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not given:
        return STEP_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ConfigurationError(
            f"{TIMEOUT_VARIABLE}={given!r}: give the seconds a scorer's step may take, a "
            "positive number"
        )
    return seconds


class StepFailed(Exception):
    """A scorer's step that exited, raised `KeyboardInterrupt` itself, or ran past its time
    limit: that run's error, as any exception of the step is."""


class _PastLimit(BaseException):
    """Raised inside a step by the alarm; a BaseException, so that `except Exception` in the
    step does not swallow it."""


def _describe(error: BaseException) -> str:
    said = " ".join(str(error).split())
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


class Guard:
    """Runs a scorer's code while entered (`with Guard(seconds) as guard`): `guard.step(f,
    ...)` for a step of one run, under the time limit `seconds` (None: none), and
    `guard.stage(f, ...)` for a stage of a batch, without one. Each raises `StepFailed` for an
    exit, a `KeyboardInterrupt` of the code's own, or a step past its limit, and lets the
    user's Ctrl-C through."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.interrupted = False
        """Whether the user's interrupt signal came while the guard was on."""
        self._main = False
        self._alarm = False
        self._expired = False
        self._previous: dict[signal.Signals, Any] = {}

    def __enter__(self) -> Guard:
        self._main = threading.current_thread() is threading.main_thread()
        if not self._main:
            return self
        self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._on_interrupt)
        alarm_free = (
            hasattr(signal, "SIGALRM")
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0
        )
        if self.seconds is not None and alarm_free:
            self._previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, self._on_alarm)
            self._alarm = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()
        self._alarm = False

    def _on_interrupt(self, number: int, frame: FrameType | None) -> None:
        self.interrupted = True
        previous = self._previous.get(signal.SIGINT)
        if callable(previous):
            previous(number, frame)
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    def _on_alarm(self, number: int, frame: FrameType | None) -> None:
        self._expired = True
        raise _PastLimit

    @contextmanager
    def running(self, what: str, *, limited: bool = False) -> Iterator[None]:
        """Runs the code of a `with` block as the guard runs a step (`limited`: under the time
        limit) or a stage: `with guard.running("generate()"): ...`."""
        timed = limited and self._alarm and self.seconds is not None
        self._expired = False
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, self.seconds or 0.0, _AGAIN)
            try:
                yield
            finally:
                if timed:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _PastLimit:
            raise StepFailed(self._late(what)) from None
        except KeyboardInterrupt:
            if self.interrupted:
                raise
            raise StepFailed(f"{what} raised KeyboardInterrupt") from None
        except SystemExit as e:
            raise StepFailed(f"{what} exited ({_describe(e)})") from None
        except Exception:
            raise
        except BaseException as e:  # GeneratorExit, or a BaseException of the scorer's own
            raise StepFailed(f"{what} raised {_describe(e)}") from None
        if self.interrupted:
            raise KeyboardInterrupt  # the user's, which the step caught and went on
        if self._expired:
            raise StepFailed(self._late(what))

    def _late(self, what: str) -> str:
        return f"{what} took more than {self.seconds:g} s (the limit {TIMEOUT_VARIABLE} sets)"

    def step(self, what: str, code: Callable[..., T], *args: Any) -> T:
        """`code(*args)`, a step of one run (`what` names it in messages: "prepare()"), under
        the time limit."""
        with self.running(what, limited=True):
            return code(*args)

    def stage(self, what: str, code: Callable[..., T], *args: Any) -> T:
        """`code(*args)`, a stage of a batch named `what`, without a time limit."""
        with self.running(what):
            return code(*args)
