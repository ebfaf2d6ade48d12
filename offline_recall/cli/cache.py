"""`offline-recall cache`: the claim cache kept across runs."""

from __future__ import annotations

import click

from ..runs.claim_cache import ClaimCache


@click.group()
def cache() -> None:
    """The claim cache: claims extracted in earlier runs, reused by later ones."""


@cache.command("info")
def cache_info() -> None:
    """Where the claim cache is, how many entries it holds, and its size."""
    claims = ClaimCache()
    try:
        info = claims.info()
    finally:
        claims.close()
    click.echo(f"location: {info.path}")
    click.echo(f"entries:  {info.entries}")
    click.echo(f"size:     {info.bytes} bytes")


@cache.command("clear")
def cache_clear() -> None:
    """Remove every entry of the claim cache."""
    claims = ClaimCache()
    try:
        removed = claims.clear()
    finally:
        claims.close()
    click.echo(f"removed {removed} entries from {claims.path}")
