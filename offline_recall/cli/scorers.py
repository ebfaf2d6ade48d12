"""`offline-recall scorers`: the scorers a run can name, built in and from plugins."""

from __future__ import annotations

import click

from ..printable import printable
from ..scorer.registry import SCORERS
from . import COMMANDS


@click.command("scorers", short_help=COMMANDS["scorers"].help)
def scorers() -> None:
    """Each scorer `score --scorer` accepts: its id, where it comes from (built in, or the
    installed package whose entry point in the `offline_recall.scorers` group adds it), what it
    reads of a run, and its verdict kind. A plugin that cannot be loaded is listed as skipped."""
    skipped = SCORERS.broken  # listed below, each once: no warning on stderr besides
    for sid, scorer in SCORERS.items():
        click.echo(f"{printable(sid)} ({printable(SCORERS.source(sid))}): {printable(scorer.name)}")
        click.echo(f"  reads: {', '.join(scorer.reading()) or 'not declared'}")
        if scorer.asks_model():
            click.echo(f"  verdict: {printable(scorer.verdict_kind())}")
        else:
            click.echo("  verdict: a rule, asking no model")
    for broken in skipped:
        click.echo(printable(f"skipped: {broken}"))


__all__ = ["scorers"]
