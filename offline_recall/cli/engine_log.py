"""The engine's own messages in a command: kept in a log file the command names in one line,
or shown on the terminal with `--verbose`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..paths import cache_root
from ..printable import printable

if TYPE_CHECKING:
    from rich.console import Console

    from ..engines.engine_output import EngineOutput

F = TypeVar("F", bound=Callable[..., Any])


def verbose_option(command: F) -> F:
    """`--verbose`: the engine's own messages on the terminal rather than in a log file."""
    return click.option(
        "--verbose",
        is_flag=True,
        help="Show the engine's own messages (vLLM, transformers, torch, Ray) on the terminal "
        "instead of keeping them in a log file.",
    )(command)


def engine_log_path(command: str, out: Path | None = None) -> Path:
    """Where `command` keeps its engine's messages: beside its results (`<out>.engine.log`),
    else in the cache folder (`logs/<command>.engine.log`)."""
    if out is not None:
        return out.with_name(out.name + ".engine.log")
    return cache_root() / "logs" / f"{command}.engine.log"


@contextmanager
def engine_messages(console: Console, path: Path | None) -> Iterator[EngineOutput]:
    """Inside, the engine's output goes to `path` (None: the terminal, for `--verbose`) and
    `console` still writes to the terminal; at the end, one line names the log if it holds
    anything (also when the command fails: the engine's messages may say why)."""
    from rich.text import Text

    from ..engines.engine_output import engine_output

    found: EngineOutput | None = None
    before = console.file
    try:
        with engine_output(path) as output:
            found = output
            console.file = output.stderr
            try:
                yield output
            finally:
                console.file = before
    finally:
        said = None if found is None else found.said()
        if said is not None:
            console.print(Text(printable(said), style="dim"), soft_wrap=True)
