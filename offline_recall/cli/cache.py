"""`offline-recall cache`: what is kept across runs, the claim cache and the probed servers."""

from __future__ import annotations

from contextlib import closing

import click

from ..engines.probed import ProbedServers
from ..engines.weights import clear_interrupted
from ..paths import cache_root
from ..printable import printable
from ..runs.claim_cache import ClaimCache
from ..urls import shown_url
from . import COMMANDS


@click.group(short_help=COMMANDS["cache"].help)
def cache() -> None:
    """The cache kept across runs: claims extracted in earlier runs, reused by later ones, and
    which dialect each model server was found to honour, so it is not probed again."""


@cache.command("info")
def cache_info() -> None:
    """Where the claim cache is, how many entries it holds, and its size; then each probed
    model server and the dialect it honoured."""
    with closing(ClaimCache()) as claims:
        info = claims.info()
    click.echo(f"location: {info.path}")
    click.echo(f"entries:  {info.entries}")
    click.echo(f"size:     {info.bytes} bytes")
    servers = ProbedServers()
    probed = servers.entries()
    click.echo(f"servers:  {len(probed)} probed, {servers.size()} bytes in {servers.folder}")
    for entry in probed:
        server = entry.identity
        click.echo(
            f"  {printable(shown_url(server.base_url), 200)} {printable(server.endpoint)} "
            f"{printable(server.served_model, 80)}: {entry.dialect}"
        )


@cache.command("clear")
def cache_clear() -> None:
    """Remove every entry of the claim cache, forget every probed server, and remove what an
    interrupted model conversion left behind. Nothing is removed through a symbolic link."""
    servers = ProbedServers()
    servers.check()  # before anything is cleared: a refusal leaves everything as it was
    with closing(ClaimCache()) as claims:
        removed = claims.clear()
    click.echo(f"removed {removed} entries from {claims.path}")
    click.echo(f"forgot {servers.clear()} probed servers in {servers.folder}")
    models = cache_root() / "models"
    left = clear_interrupted(models) if models.is_dir() and not models.is_symlink() else []
    click.echo(f"removed {len(left)} interrupted conversions in {models}")
