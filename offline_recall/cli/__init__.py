"""The `offline-recall` command line.

Each command's module is imported only when that command runs (or is asked for by name), so
`--help`, `--version` and a refused input cost no more than the command they reach.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import click

from .._version import __version__
from ..errors import OfflineRecallError
from ..imported import imported
from ..printable import printable


class LazyCommand(NamedTuple):
    """Where a command is defined, and the one line `--help` lists for it (the command's
    `short_help`, read from here; a test keeps the two equal)."""

    module: str
    attribute: str
    help: str


COMMANDS: dict[str, LazyCommand] = {
    "cache": LazyCommand(
        "offline_recall.cli.cache", "cache", "Show or clear the claim and model-server caches."
    ),
    "calibrate": LazyCommand(
        "offline_recall.cli.calibrate",
        "calibrate",
        "Fit the judge rule of a scorer to labelled rows.",
    ),
    "compare": LazyCommand(
        "offline_recall.cli.results", "compare", "Compare scored runs item by item."
    ),
    "mastra-module": LazyCommand(
        "offline_recall.cli.mastra",
        "mastra_module",
        "Write the Mastra scorers that score through `serve`.",
    ),
    "models": LazyCommand(
        "offline_recall.cli.models", "models", "Pinned models: manifests and their weights."
    ),
    "report": LazyCommand(
        "offline_recall.cli.results", "report", "Write a self-contained HTML report of a run."
    ),
    "score": LazyCommand(
        "offline_recall.cli.score", "score", "Score a dataset's rows with one or more scorers."
    ),
    "scorers": LazyCommand(
        "offline_recall.cli.scorers", "scorers", "List the scorers, built in and from plugins."
    ),
    "serve": LazyCommand(
        "offline_recall.cli.serve", "serve", "Score runs sent over HTTP, e.g. from Mastra."
    ),
    "verify": LazyCommand(
        "offline_recall.cli.results", "verify", "Re-score a run and say where its records differ."
    ),
}


class _Commands(click.Group):
    """The commands of `COMMANDS`, each imported when it is looked up; errors a user can fix
    end any command with their one-line message, never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = COMMANDS.get(cmd_name)
        if lazy is None:
            return None
        command = imported(f"{lazy.module}:{lazy.attribute}")
        assert isinstance(command, click.Command), lazy
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands' one-line help from the table, importing none of them."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name].help) for name in self.list_commands(ctx)])

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OfflineRecallError as e:
            raise click.ClickException(printable(str(e), lines=True)) from e
        except click.ClickException as e:
            if type(e) is not click.ClickException:  # a usage error quotes the command line
                raise
            # A command's own one-line errors may quote a file's text: escaped all the same.
            raise click.ClickException(printable(e.message, lines=True)) from e


@click.group(cls=_Commands)
@click.version_option(__version__, prog_name="offline-recall")
def main() -> None:
    """Context recall for RAG evaluation on a local, pinned, open-weight model."""


__all__ = ["COMMANDS", "main"]
