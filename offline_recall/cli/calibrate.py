"""`offline-recall calibrate`: fit a model's judge profile on labelled rows."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..data.destinations import check_destinations
from ..engines.weights import model_files
from ..errors import DatasetError
from ..judging.labelled import read_labelled
from ..judging.profile import save_profile, user_profile_path
from ..printable import printable
from ..runs.calibration import Calibration, calibration_run
from ..runs.calibration import calibrate as fit
from ..runs.calibration.fit import SIGNAL_SETS
from ..scorer.registry import RECALL, SCORERS, scorer_kind
from . import COMMANDS
from .options import file_option, model_and_engine, number_option, parse_engine_options

SMALL_SAMPLE = 50
"""Fewer labelled claims than this give a cross-validated estimate that moves a lot."""


def _report(found: Calibration, unit: str) -> Table:
    profile, checked = found.profile, found.profile.cross_validated
    assert checked is not None  # fit_profile always cross-validates
    replaced = found.replaced.profile_origin.value
    table = Table(title=f"Judge profile, {checked.folds}-fold cross-validated by claim")
    table.add_column("")
    table.add_column("this profile", justify="right")
    table.add_column("word overlap", justify="right")
    table.add_column(f"now ({replaced})", justify="right")
    spread = "" if checked.spread is None else f" ± {checked.spread:.3f}"
    now = "n/a" if found.replaced_auroc is None else f"{found.replaced_auroc:.3f}"
    table.add_row("AUROC", f"{checked.auroc:.3f}{spread}", f"{checked.baseline_auroc:.3f}", now)
    table.add_row(
        "balanced accuracy",
        f"{checked.balanced_accuracy:.3f}",
        f"{checked.baseline_balanced_accuracy:.3f}",
        "",
    )
    table.add_row("threshold", f"{profile.threshold:.3f}", "", "")
    table.add_row(f"{unit} / pairs", f"{found.claims} / {profile.rows}", "", "")
    table.add_row("signals", ", ".join(profile.signals), "", "")
    return table


def _warn(console: Console, said: str) -> None:
    console.print(Text(printable(said), style="yellow"), soft_wrap=True)


@click.command(short_help=COMMANDS["calibrate"].help)
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Labelled rows (.jsonl, .json, .csv, .parquet): for recall claim, context, label "
    "[, group]; for precision question, answer, chunk, label.",
)
@model_and_engine
@click.option(
    "--scorer",
    "scorer_id",
    type=click.Choice(
        sorted(k for k, kind in SCORERS.builtin.items() if kind.profile_scorer is None)
    ),
    default=RECALL,
    show_default=True,
    help="The scorer whose judge to fit (faithfulness judges with context recall's).",
)
@click.option(
    "--signals",
    "signal_set",
    type=click.Choice(sorted(SIGNAL_SETS)),
    default="all",
    show_default=True,
    help="What the rule combines: the model's P(yes), the lexical signals, or both.",
)
@number_option(
    "--evidence-sentences",
    at_least=0,
    default=3,
    help="The model judges each claim against this many best-matching sentences of the "
    "context (0: the whole context).",
)
@number_option(
    "--folds",
    at_least=2,
    default=5,
    help="Cross-validation folds (split by claim) that estimate the profile's AUROC.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the folds' random split (the same seed, the same estimate).",
)
@file_option(
    "--out",
    help="Where to write the profile [default: install it as the model's profile in the "
    "cache, which later runs of this model and prompt version use].",
)
@click.option(
    "--force",
    is_flag=True,
    help="Install the profile even if it does worse than word overlap (its AUROC or balanced "
    "accuracy) or the profile in use.",
)
def calibrate(
    model: str,
    data: Path,
    backend: str,
    engine_option: tuple[str, ...],
    scorer_id: str,
    signal_set: str,
    evidence_sentences: int,
    folds: int,
    seed: int,
    out: Path | None,
    force: bool,
) -> None:
    """Fit the rule that turns a model's signals into a scorer's verdicts, on labelled rows.

    Prints cross-validated AUROC and balanced accuracy beside the word-overlap baseline, and
    stores the profile where later `score` runs of the same model pick it up.
    """
    console = Console(stderr=True)
    if out is not None:
        check_destinations([("--out", out)], {"DATA": data} | model_files("--model", model))
    pairs, errors = read_labelled(data, scorer_kind(scorer_id).labelled_statement)
    for error in errors:
        _warn(console, f"skipped {error.message}")
    if not pairs:
        raise DatasetError(f"{data.name}: no usable labelled rows")
    run = calibration_run(
        model,
        scorer_id=scorer_id,
        backend=backend,
        engine_options=parse_engine_options(engine_option),
        set_aside=force,
        say=partial(_warn, console),
    )
    claims = len({p.group for p in pairs})
    unit = scorer_kind(scorer_id).unit
    with console.status(f"judging the pairs of {claims} labelled {unit}"):
        found = fit(
            run,
            pairs,
            scorer_id=scorer_id,
            signals=signal_set,
            evidence_sentences=evidence_sentences,
            folds=folds,
            seed=seed,
            trained_on=f"{data.name}: {claims} {unit}",
        )
    if found.failed:
        console.print(Text(f"{found.failed} pairs could not be judged", style="yellow"))
    Console().print(_report(found, unit))
    checked = found.profile.cross_validated
    if found.claims < SMALL_SAMPLE and checked is not None:
        spread = "" if checked.spread is None else f" (± {checked.spread:.3f} across folds)"
        console.print(
            Text(
                f"warning: only {found.claims} labelled {unit}: the cross-validated AUROC "
                f"{checked.auroc:.3f}{spread} can move a lot; label more for a profile to trust",
                style="yellow",
            ),
            soft_wrap=True,
        )
    profile = found.profile
    losses = found.losses()
    if out is None and losses and not force:
        raise click.ClickException(
            f"not installed: {'; and '.join(losses)}. Pass --force to install it anyway, or "
            "--out FILE to keep it aside"
        )
    target = out or user_profile_path(scorer_id, profile.model_fingerprint, profile.prompt_version)
    path = save_profile(profile, target)
    verb = "wrote" if out is not None else "installed"
    Console().print(f"{verb} {path}")
