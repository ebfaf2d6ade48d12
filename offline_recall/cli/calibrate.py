"""`offline-recall calibrate`: fit a model's judge profile on labelled rows."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import DatasetError
from ..judging.calibrate import SIGNAL_SETS
from ..judging.labelled import read_labelled
from ..judging.profile import JudgeProfile, save_profile, user_profile_path
from ..runs.calibration import calibrate as fit
from ..runs.spec import resolve_spec
from ..scorers.recall import ID as RECALL
from .options import model_and_engine, parse_engine_options


def _report(profile: JudgeProfile, claims: int, path: Path) -> Table:
    checked = profile.cross_validated
    assert checked is not None  # fit_profile always cross-validates
    table = Table(title=f"Judge profile, {checked.folds}-fold cross-validated by claim")
    table.add_column("")
    table.add_column("this profile", justify="right")
    table.add_column("word overlap", justify="right")
    table.add_row("AUROC", f"{checked.auroc:.3f}", f"{checked.baseline_auroc:.3f}")
    table.add_row(
        "balanced accuracy",
        f"{checked.balanced_accuracy:.3f}",
        f"{checked.baseline_balanced_accuracy:.3f}",
    )
    table.add_row("threshold", f"{profile.threshold:.3f}", "")
    table.add_row("claims / pairs", f"{claims} / {profile.rows}", "")
    table.add_row("signals", ", ".join(profile.signals), "")
    table.add_row("written to", str(path), "")
    return table


@click.command()
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Labelled rows (.jsonl, .json, .csv, .parquet): claim, context, label [, group].",
)
@model_and_engine
@click.option(
    "--signals",
    "signal_set",
    type=click.Choice(sorted(SIGNAL_SETS)),
    default="all",
    show_default=True,
    help="What the rule combines: the model's P(yes), the lexical signals, or both.",
)
@click.option(
    "--evidence-sentences",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="The model judges each claim against this many best-matching sentences of the "
    "context (0: the whole context).",
)
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the profile [default: the model's profile in the cache, which "
    "later runs of this model and prompt version use].",
)
def calibrate(
    model: str,
    data: Path,
    backend: str,
    engine_option: tuple[str, ...],
    signal_set: str,
    evidence_sentences: int,
    folds: int,
    seed: int,
    out: Path | None,
) -> None:
    """Fit the rule that turns a model's signals into verdicts, on labelled claims.

    Prints cross-validated AUROC and balanced accuracy beside the word-overlap baseline, and
    stores the profile where later `score` runs of the same model pick it up.
    """
    console = Console(stderr=True)
    pairs, errors = read_labelled(data)
    for error in errors:
        console.print(Text(f"skipped {error.message}", style="yellow"), soft_wrap=True)
    if not pairs:
        raise DatasetError(f"{data.name}: no usable labelled rows")
    spec = resolve_spec(
        model, engine=backend, engine_options=parse_engine_options(engine_option), scorers=[RECALL]
    )
    claims = len({p.group for p in pairs})
    with console.status(f"judging the pairs of {claims} claims"):
        found = fit(
            spec,
            pairs,
            signals=signal_set,
            evidence_sentences=evidence_sentences,
            folds=folds,
            seed=seed,
            trained_on=f"{data.name}: {claims} claims",
        )
    if found.failed:
        console.print(Text(f"{found.failed} pairs could not be judged", style="yellow"))
    profile = found.profile
    target = out or user_profile_path(RECALL, profile.model_fingerprint, profile.prompt_version)
    path = save_profile(profile, target)
    Console().print(_report(profile, claims, path))
