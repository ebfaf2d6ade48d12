"""The `offline-recall` command line."""

from __future__ import annotations

from typing import Any

import click

from .._version import __version__
from ..errors import OfflineRecallError
from .cache import cache
from .calibrate import calibrate
from .models import models
from .runs import compare, report, verify
from .score import score
from .scorers import scorers


class _Commands(click.Group):
    """Errors a user can fix end any command with their one-line message, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OfflineRecallError as e:
            raise click.ClickException(str(e)) from e


@click.group(cls=_Commands)
@click.version_option(__version__, prog_name="offline-recall")
def main() -> None:
    """Context recall for RAG evaluation on a local, pinned, open-weight model."""


for command in (score, report, compare, verify, models, cache, calibrate, scorers):
    main.add_command(command)

__all__ = ["main"]
