"""Command-line options several commands share, and reading them into typed values."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from ..engines import AUTO, ENGINES
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError
from ..scorer.registry import scorer_kind

F = TypeVar("F", bound=Callable[..., Any])
_SERVER = "offline_recall.server_options"


def gathered(
    choice: type[Any], name: str, options: Sequence[Callable[[Any], Any]]
) -> Callable[[F], F]:
    """The `options` (decorators, in the order `--help` lists them), their values given to the
    command as one argument `name`: a `choice`, the dataclass whose fields are the options'
    parameter names."""
    names = tuple(f.name for f in fields(choice))

    def apply(command: F) -> F:
        @functools.wraps(command)
        def gathering(**given: Any) -> Any:
            chosen = choice(**{n: given.pop(n) for n in names})
            return command(**{name: chosen}, **given)

        made: Any = gathering
        for option in reversed(options):
            made = option(made)
        return cast(F, made)

    return apply


def number_option(
    *decls: str,
    default: float | None,
    help: str,
    at_least: float = 1,
    at_most: int | None = None,
    real: bool = False,
    above: bool = False,
    metavar: str | None = None,
    show_default: bool = True,
) -> Callable[[F], F]:
    """An option taking a whole number (a real one if `real`) of at least `at_least` (more
    than it if `above`) and at most `at_most`, its default shown in `--help` unless
    `show_default` is false."""
    kind = (
        click.FloatRange(min=at_least, min_open=above)
        if real
        else click.IntRange(min=int(at_least), max=at_most, min_open=above)
    )
    return click.option(
        *decls,
        type=kind,
        default=default,
        show_default=show_default,
        metavar=metavar,
        help=help,
    )


def file_option(*decls: str, help: str) -> Callable[[F], F]:
    """An option naming a file the command writes (no default: the command picks one)."""
    return click.option(
        *decls, type=click.Path(dir_okay=False, path_type=Path), default=None, help=help
    )


def _server_option(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """Keeps a given server flag for `parse_engine_options`: the flags are engine options of
    `--backend openai`, and reach it the way `-o KEY=VALUE` does."""
    if value is not None and param.name is not None:
        ctx.meta.setdefault(_SERVER, {})[param.name] = value


def _server_flag(name: str, metavar: str, text: str, kind: Any = None) -> Callable[[F], F]:
    return click.option(
        name,
        type=kind,
        metavar=metavar,
        expose_value=False,
        callback=_server_option,
        help=f"--backend openai: {text}",
    )


def judge_model_options(command: F) -> F:
    """`--judge-model` (a second pinned model that judges) and `--judge-backend`."""
    command = click.option(
        "--judge-backend",
        type=click.Choice([AUTO, *sorted(ENGINES)]),
        default=None,
        help="The engine that runs the judge model [default: --backend].",
    )(command)
    return click.option(
        "--judge-model",
        default=None,
        metavar="NAME|PATH",
        help="A fine-tuned verifier (a generative one, or a classifier) that judges the claims "
        "while --model extracts them.",
    )(command)


def model_and_engine(command: F) -> F:
    """`--model`, `--backend` (the engine), `-o/--engine-option KEY=VALUE` (repeatable), and
    the server engine's flags (`--base-url` ...), read by `parse_engine_options`."""
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
                type=click.Choice([AUTO, *sorted(ENGINES)]),
                default=AUTO,
                show_default=True,
                help="The engine that runs the model (auto: the model's own where it is "
                "installed, vLLM for the Qwen judges, else onnx; transformers otherwise).",
            ),
            click.option(
                "-o",
                "--engine-option",
                multiple=True,
                metavar="KEY=VALUE",
                help="An option of the engine (e.g. device=cuda, dtype=bfloat16). Repeatable.",
            ),
            _server_flag("--base-url", "URL", "the server's API root, http://HOST:PORT/v1."),
            _server_flag(
                "--served-model", "NAME", "the model to ask for [default: the server's only one]."
            ),
            _server_flag("--api-key-env", "VAR", "the environment variable holding its API key."),
            _server_flag(
                "--concurrency", "N", "requests in flight at once [default: 64].", click.IntRange(1)
            ),
            _server_flag(
                "--timeout",
                "S",
                "seconds a request may take [default: 600].",
                click.FloatRange(0, min_open=True),
            ),
        ]
    ):
        command = option(command)
    return command


def parse_engine_options(items: Sequence[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs and the server flags given; the engine checks keys and values against
    its own options."""
    context = click.get_current_context(silent=True)
    flags: dict[str, Any] = dict(context.meta.get(_SERVER, {})) if context is not None else {}
    options: dict[str, Any] = dict(flags)
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.ClickException(f"--engine-option {item!r}: expected KEY=VALUE")
        if key.strip() in flags:
            flag = "--" + key.strip().replace("_", "-")
            raise click.ClickException(f"{key.strip()} is given twice: as {flag} and as -o")
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


def _delimiter(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`--delimiter`: one character; `\\t` or `tab` for a tab."""
    if value is None:
        return None
    given = "\t" if value in ("\\t", "tab") else value
    if len(given) != 1 or given in '"\r\n':
        raise click.BadParameter(
            f"{value!r}: give one character (a comma, ';', '|'), or '\\t' for a tab"
        )
    return given


def delimiter_option(command: F) -> F:
    """`--delimiter C`: the character a CSV input's cells are split at."""
    return click.option(
        "--delimiter",
        default=None,
        metavar="C",
        callback=_delimiter,
        help="CSV: the character between cells (',', ';', '\\t' for a tab) [default: the one "
        "the header line holds most of: a comma, a semicolon or a tab].",
    )(command)


def finite_scale(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """`--scale`: a finite number from 0 (meaning 1) to the largest scale."""
    from ..scorer.results import check_scale

    try:
        check_scale(value)
    except ConfigurationError as e:
        raise click.BadParameter(str(e).replace("`scale` must be", "must be")) from None
    return value


def parse_fail_under(
    items: Sequence[str], scorers: Sequence[str], scale: float = 1.0
) -> dict[str, float]:
    """The gate per scorer id: `X` for the only scorer, or `SCORER=X` pairs; a gate above the
    scale (0 means 1), which no mean can reach, is refused."""
    top = scale or 1.0
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
        if not math.isfinite(gates[sid]):
            raise click.ClickException(
                f"--fail-under {item}: give a finite number, not {value!r}, as the gate"
            )
        if gates[sid] > top:
            percent = gates[sid] <= 100 * top
            raise click.ClickException(
                f"--fail-under {item}: scores are in [0, {top:g}] (--scale {scale:g}), so no "
                f"mean can reach {value}; give a gate in that range"
                + (f" ({gates[sid] / 100:g} for {value}%)" if percent else "")
            )
    return gates
