"""An engine's own output kept off the terminal: what vLLM, transformers, torch and Ray say
while a model loads and works (their logging, Python warnings, and what native code and the
engine's worker processes write to the standard streams) goes to a log file, and the command's
own lines still reach the terminal.

The standard streams (`sys.stdout`, `sys.stderr`, for what Python code prints: a progress bar
redrawn in place) and their file descriptors (for native code and child processes: vLLM's
engine core when `VLLM_ENABLE_V1_MULTIPROCESSING` is on, Ray's start-up) point at the log for
the duration; the command writes its own lines to `EngineOutput.stdout` and
`EngineOutput.stderr`, which are the terminal's streams as they were. Nothing is changed at
import: only inside `engine_output`, and all of it is put back when it ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

ENGINE_LOGGERS = (
    "vllm",
    "transformers",
    "torch",
    "ray",
    "outlines",
    "xgrammar",
    "accelerate",
    "huggingface_hub",
    "filelock",
)
"""The loggers of the engines' libraries, whose records go to the log."""

_ENVIRONMENT = {"VLLM_CONFIGURE_LOGGING": "0"}
"""Set (unless the user set it) while the log is kept, for a vLLM imported then: its records
reach the handler here rather than a stream handler of its own."""

_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


@dataclass
class EngineOutput:
    """Where an engine's output went: `path` (None: left on the terminal), how many warnings
    it holds, and the terminal's streams for the command's own lines meanwhile."""

    path: Path | None
    stdout: TextIO
    stderr: TextIO
    warnings: int = 0
    _streams: list[TextIO] = field(default_factory=list, repr=False)

    def lines(self) -> int:
        """The lines the log holds (0 when there is none)."""
        if self.path is None or not self.path.is_file():
            return 0
        with self.path.open("rb") as log:
            return sum(1 for _ in log)

    def said(self) -> str | None:
        """The one line that names the log and what it holds; None when it holds nothing."""
        count = self.lines()
        if self.path is None or count == 0:
            return None
        warned = f", {self.warnings} warning{'' if self.warnings == 1 else 's'}"
        return (
            f"the engine's own messages ({count} line{'' if count == 1 else 's'}"
            f"{warned if self.warnings else ''}) are in {self.path}; --verbose shows them here"
        )


class _Counted(logging.StreamHandler[TextIO]):
    """A handler writing to the log that counts the warnings and errors it is given."""

    def __init__(self, stream: TextIO, output: EngineOutput) -> None:
        super().__init__(stream)
        self._output = output
        self.setFormatter(logging.Formatter(_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self._output.warnings += 1
        super().emit(record)


@contextlib.contextmanager
def engine_output(path: Path | None) -> Iterator[EngineOutput]:
    """Inside, an engine's output goes to `path` (written afresh; removed at the end if
    nothing was written); None leaves it all on the terminal."""
    if path is None:
        yield EngineOutput(None, sys.stdout, sys.stderr)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with (
            path.open("w", encoding="utf-8", errors="backslashreplace", buffering=1) as log,
            contextlib.ExitStack() as undo,
        ):
            output = EngineOutput(path, sys.stdout, sys.stderr)
            undo.enter_context(_environment())
            undo.enter_context(_loggers(_Counted(log, output)))
            undo.enter_context(_warnings(log, output))
            output.stdout = undo.enter_context(_descriptor("stdout", 1, log))
            output.stderr = undo.enter_context(_descriptor("stderr", 2, log))
            yield output
    finally:
        if path.is_file() and path.stat().st_size == 0:
            path.unlink()


@contextlib.contextmanager
def _environment() -> Iterator[None]:
    added = [name for name in _ENVIRONMENT if name not in os.environ]
    for name in added:
        os.environ[name] = _ENVIRONMENT[name]
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@contextlib.contextmanager
def _loggers(handler: logging.Handler) -> Iterator[None]:
    """The engines' loggers write to `handler` alone (INFO and up where they set no level)."""
    saved = []
    for name in ENGINE_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, list(logger.handlers), logger.propagate, logger.level))
        logger.handlers = [handler]
        logger.propagate = False
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        for logger, handlers, propagate, level in saved:
            logger.handlers = handlers
            logger.propagate = propagate
            logger.setLevel(level)


@contextlib.contextmanager
def _warnings(log: TextIO, output: EngineOutput) -> Iterator[None]:
    """Python warnings written to the log (and counted), as Python would print them."""
    with warnings.catch_warnings():

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            output.warnings += 1
            log.write(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        yield


@contextlib.contextmanager
def _descriptor(name: str, fd: int, log: TextIO) -> Iterator[TextIO]:
    """The standard stream `name` (`sys.stdout`, `sys.stderr`) and its file descriptor `fd`
    pointed at the log; yields the stream the command writes its own lines to: the stream as
    it was when it does not write to `fd` (a test's captured stream), else a stream on a copy
    of `fd` as it was."""
    stream: TextIO = getattr(sys, name)
    _flush(stream)
    saved = os.dup(fd)
    own = stream if _descriptor_of(stream) != fd else _reopened(saved, stream)
    os.dup2(log.fileno(), fd)
    setattr(sys, name, log)
    try:
        yield own
    finally:
        setattr(sys, name, stream)
        _flush(stream)
        _flush_native()
        os.dup2(saved, fd)
        if own is stream:
            os.close(saved)
        else:
            own.close()


def _descriptor_of(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


def _reopened(fd: int, like: TextIO) -> TextIO:
    encoding = getattr(like, "encoding", None) or "utf-8"
    return open(fd, "w", encoding=encoding, errors="backslashreplace", buffering=1)


def _flush(stream: TextIO) -> None:
    with contextlib.suppress(OSError, ValueError):
        stream.flush()


def _flush_native() -> None:
    """What native code buffered for the standard streams goes out before they point back."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(None).fflush(None)
