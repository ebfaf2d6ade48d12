"""`offline-recall mastra-module`: the Mastra scorers' npm package, written into a project."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from . import COMMANDS


@click.command("mastra-module", short_help=COMMANDS["mastra-module"].help)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The folder to write the package into, inside your Mastra project (made if missing).",
)
def mastra_module(out: Path) -> None:
    """Write `offline-recall-mastra`, an npm package of Mastra scorers that score through
    `offline-recall serve`, into OUT; `npm install ./OUT` then adds it to the project.

    Its createContextRecallScorer, createContextPrecisionScorer, createFaithfulnessScorer and
    createContextRelevanceScorer take Mastra's options (context, contextExtractor, scale) and
    give Mastra scorers with Mastra's ids, so runEvals and scorerResults[scorer.id] read as in
    Mastra's docs. Files of the package already in OUT are replaced; nothing else is touched.
    """
    from ..integrations import MASTRA_FILES, MASTRA_MODULE

    out.mkdir(parents=True, exist_ok=True)
    for name in MASTRA_FILES:
        shutil.copyfile(MASTRA_MODULE / name, out / name)
    shown = out.as_posix()
    if not (out.is_absolute() or shown.startswith(".")):
        shown = f"./{shown}"  # npm reads a bare name as a package of the registry
    click.echo(f"wrote offline-recall-mastra to {out}; add it to your project with:")
    click.echo(f"  npm install {shown}")
