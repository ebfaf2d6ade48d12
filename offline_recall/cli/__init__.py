"""The `offline-recall` command line."""

from __future__ import annotations

import click

from .._version import __version__
from .cache import cache
from .models import models
from .runs import compare, report, verify
from .score import recorded_context, score


@click.group()
@click.version_option(__version__, prog_name="offline-recall")
def main() -> None:
    """Context recall for RAG evaluation on a local, pinned, open-weight model."""


for command in (score, report, compare, verify, models, cache):
    main.add_command(command)

__all__ = ["main", "recorded_context"]
