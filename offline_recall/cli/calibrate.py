"""`offline-recall calibrate`: fit a model's judge profile on labelled rows."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..backends import BACKENDS, create_backend
from ..calibrate import DEFAULT_SIGNALS, fit_profile
from ..chunking import pack
from ..errors import DatasetError
from ..judge import signal_values
from ..labelled import LabelledPair, read_labelled
from ..models import DEFAULT_MODEL, load_manifest
from ..profile import MODEL_SIGNAL, JudgeProfile, save_profile, user_profile_path
from ..signals import LEXICAL_SIGNALS

SIGNAL_SETS = {
    "all": DEFAULT_SIGNALS,
    "lexical": LEXICAL_SIGNALS,
    "model": (MODEL_SIGNAL,),
}


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
    "--model", default=DEFAULT_MODEL, show_default=True, help="Model name or manifest path."
)
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Labelled rows (.jsonl, .json, .csv, .parquet): claim, context, label [, group].",
)
@click.option(
    "--backend", type=click.Choice(sorted(BACKENDS)), default="transformers", show_default=True
)
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
    engine = create_backend(backend, load_manifest(model))
    info = engine.info
    chunked = [
        LabelledPair(context=piece, claim=p.claim, label=p.label, group=p.group)
        for p in pairs
        for piece in pack(p.context, info.context_budget, engine.count_tokens)
    ]
    claims = len({p.group for p in pairs})
    signals = SIGNAL_SETS[signal_set]
    evidence = evidence_sentences or None
    with console.status(f"judging {len(chunked)} pairs"):
        values = signal_values(
            engine,
            [(p.context, p.claim) for p in chunked],
            evidence_sentences=evidence,
            with_model=MODEL_SIGNAL in signals,
        )
    profile = fit_profile(
        chunked,
        values,
        fingerprint=info.fingerprint,
        prompt_version=info.prompt_version,
        signals=signals,
        evidence_sentences=evidence if MODEL_SIGNAL in signals else None,
        folds=folds,
        seed=seed,
        trained_on=f"{data.name}: {claims} claims",
    )
    path = save_profile(profile, out or user_profile_path(info.fingerprint, info.prompt_version))
    Console().print(_report(profile, claims, path))
