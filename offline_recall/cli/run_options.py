"""The options that make a run, shared by the commands that resolve one (`score`, `serve`):
the model and its engine, a judging model, the scorers, the scale and the judge note; and the
run they make, resolved once and announced the same way by both."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..printable import printable
from ..scorer.registry import RECALL, SCORERS, scorer_kind
from .engine_log import verbose_option
from .options import (
    finite_scale,
    gathered,
    judge_model_options,
    model_and_engine,
    parse_engine_options,
    parse_scorers,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..runs.resolve import ResolvedRun

F = TypeVar("F", bound=Callable[..., Any])


def run_options(verb: str, scale_note: str = "") -> Callable[[F], F]:
    """`--model`, `--backend`, `-o`, the server engine's flags, `--judge-model`,
    `--judge-backend`, `--scorer` (the scorers to `verb`), `--scale` (its help ending in
    `scale_note`), `--no-judge-note` and `--verbose`, given to the command as one
    `chosen: RunChoice`."""
    return gathered(
        RunChoice,
        "chosen",
        [
            model_and_engine,
            judge_model_options,
            click.option(
                "--scorer",
                "scorer_list",
                multiple=True,
                default=(RECALL,),
                show_default=True,
                metavar="ID[,ID...]",
                help=f"Scorers to {verb}, comma-separated or repeated "
                f"({', '.join(SCORERS.builtin_paths)}, or an installed plugin's: "
                "`offline-recall scorers` lists them); all in one pass.",
            ),
            click.option(
                "--scale",
                type=float,
                callback=finite_scale,
                default=1.0,
                show_default=True,
                help="Multiply every score by this (scores are in [0, scale]; 0 means 1, as in "
                f"Mastra){scale_note}.",
            ),
            click.option(
                "--no-judge-note",
                is_flag=True,
                help="Do not print the line saying the embedded model's verdicts come from a "
                "lexical rule.",
            ),
            verbose_option,
        ],
    )


@dataclass(frozen=True)
class RunChoice:
    """What the run options chose (see `run_options`), in their order."""

    model: str
    backend: str
    engine_option: tuple[str, ...]
    judge_model: str | None
    judge_backend: str | None
    scorer_list: tuple[str, ...]
    scale: float
    no_judge_note: bool
    verbose: bool
    """The engine's own messages on the terminal, not in a log file."""

    @property
    def scorers(self) -> list[str]:
        """The scorer ids `--scorer` named, comma-separated or repeated."""
        return parse_scorers(",".join(self.scorer_list))


def resolve_announced(console: Console, chosen: RunChoice, command: str) -> ResolvedRun:
    """The run the options make, resolved once, announced (see `announce`)."""
    from ..runs.score import resolve

    run = resolve(
        chosen.scorers,
        model=chosen.model,
        backend=chosen.backend,
        engine_options=parse_engine_options(chosen.engine_option),
        scale=chosen.scale,
        judge_model=chosen.judge_model,
        judge_backend=chosen.judge_backend,
    )
    return announce(console, run, chosen.no_judge_note, command)


def announce(console: Console, run: ResolvedRun, no_note: bool, command: str) -> ResolvedRun:
    """`run`, after the lines that say which judge decides: the profile of each scorer that
    asks the model, and the lexical rule's note (naming `command`, as the user runs it:
    `score DATA`, `serve`) unless `no_note` (`--no-judge-note`)."""
    from rich.text import Text

    from ..judging.disclosure import is_lexical_rule, note
    from .summary import profile_line

    judged = [s for s in run.spec.scorers if scorer_kind(s.id).asks_model()]
    for scorer in judged:
        console.print(Text(printable(profile_line(scorer))), soft_wrap=True)
    if not no_note and any(
        is_lexical_rule(s.setup.judge_profile, s.profile_origin) for s in judged
    ):
        said = f"note: {note(command)} (--no-judge-note hides this)"
        console.print(Text(said, style="yellow"), soft_wrap=True)
    return run
