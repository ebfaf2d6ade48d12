"""The `offline-recall` command line."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import click
import tomli_w
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ._version import __version__
from .backends import BACKENDS
from .dataset import Row, RowError, read_rows
from .errors import OfflineRecallError
from .evals import Summary, Tally, windows
from .models import DEFAULT_MODEL, bundled_manifests, cached_dir, load_manifest, weights_state
from .pinning import pin_folder
from .scorer import ContextRecallScorer, create_context_recall_scorer
from .types import ContextRecallOptions, RecallResult, ScorerRun, Status


def recorded_context(_input: Any, output: Any) -> list[str]:
    """A dataset row's context: the retrieval already happened, its chunks are the output."""
    return list(output)


@click.group()
@click.version_option(__version__, prog_name="offline-recall")
def main() -> None:
    """Context recall for RAG evaluation on a local, pinned, open-weight model."""


def _count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for line in f if line.strip())


def _score_rows(
    scorer: ContextRecallScorer, rows: Sequence[Row | RowError]
) -> Iterator[tuple[Row | RowError, RecallResult]]:
    runs = [
        ScorerRun(input=r.input, output=r.context, ground_truth=r.ground_truth)
        for r in rows
        if isinstance(r, Row)
    ]
    scored = iter(scorer.run_many(runs))
    for r in rows:
        yield r, (scorer.error_result(r.message) if isinstance(r, RowError) else next(scored))


def _write(out: TextIO, row: Row | RowError, result: RecallResult) -> None:
    record = {"line": row.line, "id": row.id, **result.model_dump(mode="json")}
    out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _summary_table(summary: Summary, seconds: float, model: str, prompt: str) -> Table:
    table = Table(title="Context recall", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    mean = "n/a (no item scored)" if summary.mean is None else f"{summary.mean:.4f}"
    rows = [
        ("mean recall", mean),
        ("items", str(summary.items)),
        ("ok", str(summary.by_status[Status.OK])),
        ("no ground truth", str(summary.by_status[Status.NO_GROUND_TRUTH])),
        ("no claims", str(summary.by_status[Status.NO_CLAIMS])),
        ("failed", str(summary.failed)),
        ("claims supported", f"{summary.supported} / {summary.claims}"),
        ("time", f"{seconds:.1f} s"),
        ("model", model),
        ("prompt version", prompt),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


@main.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--model", default=DEFAULT_MODEL, show_default=True, help="Model name or manifest path."
)
@click.option(
    "--backend", type=click.Choice(sorted(BACKENDS)), default="transformers", show_default=True
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("results.jsonl"),
    show_default=True,
    help="Where to write one result per input line (JSON Lines).",
)
@click.option("--scale", type=click.FloatRange(min=0), default=1.0, show_default=True)
@click.option(
    "--fail-under",
    type=float,
    default=None,
    help="Exit with status 1 when the mean recall is below this (for CI gates).",
)
def score(
    data: Path, model: str, backend: str, out: Path, scale: float, fail_under: float | None
) -> None:
    """Score a JSON Lines dataset: input, groundTruth (or ground_truth), context (list)."""
    console = Console(stderr=True)
    started = time.perf_counter()
    scorer = create_context_recall_scorer(
        model,
        ContextRecallOptions(context_extractor=recorded_context, scale=scale),
        backend=backend,
    )
    try:
        info = scorer.backend.info
    except OfflineRecallError as e:
        raise click.ClickException(str(e)) from e

    tally = Tally()
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )
    with out.open("w", encoding="utf-8") as sink, progress:
        task = progress.add_task("scoring", total=_count_lines(data))
        for window in windows(read_rows(data)):
            try:
                scored = list(_score_rows(scorer, window))
            except OfflineRecallError as e:
                raise click.ClickException(str(e)) from e
            for row, result in scored:
                _write(sink, row, result)
                tally.add(result)
            sink.flush()
            progress.advance(task, len(window))

    summary = tally.summary()
    seconds = time.perf_counter() - started
    Console().print(_summary_table(summary, seconds, info.fingerprint, info.prompt_version))
    console.print(f"results: {out}")
    if fail_under is not None and (summary.mean is None or summary.mean < fail_under):
        mean = "none" if summary.mean is None else f"{summary.mean:.4f}"
        raise click.ClickException(f"mean recall {mean} is under --fail-under {fail_under}")


@main.group()
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
    try:
        manifest = pin_folder(folder, name)
    except OfflineRecallError as e:
        raise click.ClickException(str(e)) from e
    target = out or Path(f"{name}.toml")
    target.write_text(tomli_w.dumps(manifest, multiline_strings=True), encoding="utf-8")
    load_manifest(target)  # what was written must read back as a valid manifest
    click.echo(f"wrote {target}; score with: offline-recall score DATA --model {target}")
