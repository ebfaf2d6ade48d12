"""`offline-recall mastra-module`: the Mastra scorers' npm package, written into a project."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from . import COMMANDS

PACKAGE_NAME = "offline-recall-mastra"
"""The npm name of the package: a folder whose package.json says it holds this package."""


def _holds_the_package(folder: Path) -> bool:
    from ..data.destinations import json_file

    package = json_file(folder / "package.json")
    return isinstance(package, dict) and package.get("name") == PACKAGE_NAME


def _check_out(out: Path) -> None:
    """Refuse, in one line, an OUT the package may not be written into: a symbolic link, the
    package's own source, a folder holding anything but this package, or a file of the
    package that is a link, a folder, a FIFO or a device."""
    from ..data.destinations import check_destinations, check_own_folder, same_file
    from ..errors import ConfigurationError
    from ..integrations import MASTRA_FILES, MASTRA_MODULE

    if same_file(out, MASTRA_MODULE):
        raise ConfigurationError(
            f"--out {out} is offline-recall's own copy of the package; give a folder in your "
            "Mastra project"
        )
    check_own_folder("--out", out, _holds_the_package, f"the {PACKAGE_NAME} package")
    check_destinations([(f"--out's {name}", out / name) for name in MASTRA_FILES])


@click.command("mastra-module", short_help=COMMANDS["mastra-module"].help)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The folder to write the package into, inside your Mastra project: a new or empty "
    f"folder, or one already holding {PACKAGE_NAME} (made if missing).",
)
def mastra_module(out: Path) -> None:
    """Write `offline-recall-mastra`, an npm package of Mastra scorers that score through
    `offline-recall serve`, into OUT; `npm install ./OUT` then adds it to the project.

    Its createContextRecallScorer, createContextPrecisionScorer, createFaithfulnessScorer and
    createContextRelevanceScorer take Mastra's options (context, contextExtractor, scale) and
    give Mastra scorers with Mastra's ids, so runEvals and scorerResults[scorer.id] read as in
    Mastra's docs.

    OUT must be a new or empty folder, or one already holding this package (its package.json
    names offline-recall-mastra): there the package's three files (package.json, index.js,
    index.d.ts) are replaced, each whole, and nothing else is touched. Any other folder (your
    project's root among them), a symbolic link, or a package file that is a link or not a
    regular file is refused.
    """
    from ..data.destinations import replaced_whole
    from ..integrations import MASTRA_FILES, MASTRA_MODULE

    _check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in MASTRA_FILES:
            with replaced_whole(out / name) as temp:
                shutil.copyfile(MASTRA_MODULE / name, temp)
    except OSError as e:
        raise click.ClickException(f"cannot write {out}: {e.strerror or e}") from None
    shown = out.as_posix()
    if not (out.is_absolute() or shown.startswith(".")):
        shown = f"./{shown}"  # npm reads a bare name as a package of the registry
    click.echo(f"wrote offline-recall-mastra to {out}; add it to your project with:")
    click.echo(f"  npm install {shown}")
