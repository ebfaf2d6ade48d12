"""Command-line options several commands share, and reading them into typed values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from ..engines import ENGINES
from ..engines.manifests import DEFAULT_MODEL
from ..scorers import scorer_kind

F = TypeVar("F", bound=Callable[..., Any])


def model_and_engine(command: F) -> F:
    """`--model`, `--backend` (the engine) and `-o/--engine-option KEY=VALUE` (repeatable)."""
    for option in reversed(
        [
            click.option(
                "--model",
                default=DEFAULT_MODEL,
                show_default=True,
                help="Model name or manifest path.",
            ),
            click.option(
                "--backend",
                type=click.Choice(sorted(ENGINES)),
                default="transformers",
                show_default=True,
                help="The engine that runs the model.",
            ),
            click.option(
                "-o",
                "--engine-option",
                multiple=True,
                metavar="KEY=VALUE",
                help="An option of the engine (e.g. device=cuda, dtype=bfloat16). Repeatable.",
            ),
        ]
    ):
        command = option(command)
    return command


def parse_engine_options(items: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` pairs; the engine checks keys and values against its own options."""
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.ClickException(f"--engine-option {item!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def parse_scorers(text: str) -> list[str]:
    """Scorer ids from a comma-separated list, each one known."""
    ids = [s.strip() for s in text.split(",") if s.strip()]
    if not ids:
        raise click.ClickException("--scorer: name at least one scorer")
    for sid in ids:
        scorer_kind(sid)  # an unknown id lists the known ones
    return list(dict.fromkeys(ids))


def fail_under_option(command: F) -> F:
    return click.option(
        "--fail-under",
        multiple=True,
        metavar="X|SCORER=X",
        help="Exit with status 1 when a mean score is below X (for CI gates): a number when "
        "one scorer runs, else SCORER=X for each scorer to gate. Repeatable.",
    )(command)


def parse_fail_under(items: Sequence[str], scorers: Sequence[str]) -> dict[str, float]:
    """The gate per scorer id: `X` for the only scorer, or `SCORER=X` pairs."""
    gates: dict[str, float] = {}
    for item in items:
        sid, sep, value = item.rpartition("=")
        if not sep:
            if len(scorers) != 1:
                raise click.ClickException(
                    f"--fail-under {item}: several scorers run; give SCORER={item} "
                    f"(scorers: {', '.join(scorers)})"
                )
            sid = scorers[0]
        if sid not in scorers:
            raise click.ClickException(
                f"--fail-under {item}: {sid} is not run (scorers: {', '.join(scorers)})"
            )
        try:
            gates[sid] = float(value)
        except ValueError:
            raise click.ClickException(f"--fail-under {item}: {value!r} is not a number") from None
    return gates
