"""The progress a run shows: rows done, and what each scorer is doing inside a window."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from ..scorers import scorer_kind


class RunBar:
    """A bar of rows scored, with a line below it for the stage the window is in (ground
    truths extracted, verdicts judged), so a long window still moves."""

    def __init__(self, console: Console, total: int) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._rows: TaskID = self._progress.add_task("rows scored", total=total)
        self._stage: TaskID = self._progress.add_task("", total=None, visible=False)

    def __enter__(self) -> RunBar:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)

    def rows(self, done: int) -> None:
        self._progress.update(self._rows, completed=done)

    def stage(self, scorer: str, stage: str, done: int, total: int) -> None:
        measure = scorer_kind(scorer).measure
        self._progress.update(
            self._stage,
            description=f"  {measure}: {stage}",
            completed=done,
            total=total,
            visible=True,
        )
