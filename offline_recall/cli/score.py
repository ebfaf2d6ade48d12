"""`offline-recall score`: a dataset in, results, a run store and a summary out."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..backends import BACKENDS, BackendInfo
from ..claim_cache import ClaimCache
from ..evals import Summary
from ..formats import open_dataset, parse_mapping
from ..models import (
    DEFAULT_MODEL,
    load_manifest,
    sha256_file,
)
from ..results import OutputFormat, ResultRecord, output_format
from ..run_manifest import RunManifest, build_manifest
from ..runner import score_into
from ..scorer import create_context_recall_scorer
from ..store import RunIdentity, RunStore, default_store_path, manifest_path, write_manifest
from ..types import ContextRecallOptions, Status


def recorded_context(_input: Any, output: Any) -> list[str]:
    """A dataset row's context: the retrieval already happened, its chunks are the output."""
    return list(output)


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


def _output(out: Path | None, fmt: str | None) -> tuple[Path | None, str]:
    """Where results go and in which form: the format follows --out's extension unless given."""
    if fmt == "table":
        return out, "table"
    chosen = OutputFormat(fmt) if fmt else (output_format(out) if out else OutputFormat.JSONL)
    if out is not None and fmt is not None and output_format(out) != chosen:
        raise click.ClickException(
            f"--out {out} does not end in .{chosen.value} for --format {fmt}"
        )
    return out or Path(f"results.{chosen.value}"), chosen.value


def _items_table(records: Sequence[ResultRecord]) -> Table:
    table = Table(title="Items")
    table.add_column("line", justify="right")
    table.add_column("id")
    table.add_column("status")
    table.add_column("score", justify="right")
    table.add_column("supported", justify="right")
    table.add_column("missing claims or error", overflow="fold")
    for r in records:
        supported = sum(v.supported for v in r.verdicts)
        missing = "; ".join(v.claim for v in r.verdicts if not v.supported)
        table.add_row(
            str(r.line),
            "" if r.id is None else str(r.id),
            r.status.value,
            "n/a" if r.score is None else f"{r.score:.2f}",
            f"{supported}/{len(r.verdicts)}",
            r.error or missing,
        )
    return table


@click.command()
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
    default=None,
    help="Where to write one result per input row [default: results.jsonl, or "
    "results.parquet with --format parquet].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "parquet", "table"]),
    default=None,
    help="Results as JSON Lines or Parquet (default: from --out's extension), or a table "
    "on the terminal (and --out only if given).",
)
@click.option(
    "--map",
    "mapping",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="Read FIELD (id, input, ground_truth, context) from COLUMN. Repeatable.",
)
@click.option(
    "--context-sep",
    default=None,
    metavar="TEXT",
    help="CSV and Parquet: the context cell holds chunks joined by TEXT (default: a JSON list).",
)
@click.option("--scale", type=click.FloatRange(min=0), default=1.0, show_default=True)
@click.option(
    "--fail-under",
    type=float,
    default=None,
    help="Exit with status 1 when the mean recall is below this (for CI gates).",
)
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The run store that makes the run resumable [default: <out>.run.sqlite].",
)
@click.option("--restart", is_flag=True, help="Discard the run store and score every row again.")
@click.option("--no-cache", is_flag=True, help="Neither read nor keep claims in the claim cache.")
def score(
    data: Path,
    model: str,
    backend: str,
    out: Path | None,
    fmt: str | None,
    mapping: tuple[str, ...],
    context_sep: str | None,
    scale: float,
    fail_under: float | None,
    store_path: Path | None,
    restart: bool,
    no_cache: bool,
) -> None:
    """Score DATA (.jsonl, .ndjson, .json, .csv or .parquet): input, ground truth, context.

    Field names of Mastra (groundTruth), RAGAS (user_input, reference, retrieved_contexts) and
    offline-recall (ground_truth, context) are detected; --map names any other column.

    Results are committed to a run store as they finish; running the same command again after
    an interruption scores only the rows not stored yet. The output file is written from the
    store once every row is in it.
    """
    console = Console(stderr=True)
    started = time.perf_counter()
    out, form = _output(out, fmt)
    dataset = open_dataset(data, parse_mapping(mapping), context_sep)
    console.print(Text(f"reading {data.name}: {dataset.detection.describe()}"), soft_wrap=True)
    for warning in dataset.detection.warnings():
        console.print(Text(f"warning: {warning}", style="yellow"), soft_wrap=True)
    cache = None if no_cache else ClaimCache()
    scorer = create_context_recall_scorer(
        model,
        ContextRecallOptions(context_extractor=recorded_context, scale=scale),
        backend=backend,
        claim_cache=cache,
    )
    info = scorer.backend.info
    manifest = build_manifest(
        model=model,
        manifest=load_manifest(model),
        info=info,
        profile=scorer.judge.profile,
        backend=backend,
        scale=scale,
        mapping=parse_mapping(mapping),
        context_separator=context_sep,
        input_path=str(data.resolve()),
        input_sha256=sha256_file(data),
    )

    if store_path is None and out is not None:
        store_path = default_store_path(out)
    if restart and store_path is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{store_path}{suffix}").unlink(missing_ok=True)
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )
    with RunStore(store_path) as store:
        store.claim(_identity(manifest, info))
        store.set_manifest(manifest)
        with progress:
            task = progress.add_task("scoring", total=dataset.total)
            score_into(scorer, dataset, store, lambda n: progress.update(task, completed=n))
        if out is not None:
            store.export(out, output_format(out))
            write_manifest(manifest_path(out), manifest)
        summary = store.summary()
        shown = list(store.records()) if form == "table" else []
    if cache is not None:
        cache.close()

    seconds = time.perf_counter() - started
    if form == "table":
        Console().print(_items_table(shown))
    Console().print(_summary_table(summary, seconds, info.fingerprint, info.prompt_version))
    if out is not None:
        console.print(f"results: {out}")
    if fail_under is not None and (summary.mean is None or summary.mean < fail_under):
        mean = "none" if summary.mean is None else f"{summary.mean:.4f}"
        raise click.ClickException(f"mean recall {mean} is under --fail-under {fail_under}")


def _identity(manifest: RunManifest, info: BackendInfo) -> RunIdentity:
    return RunIdentity(
        input_sha256=manifest.input_sha256,
        model_fingerprint=info.fingerprint,
        prompt_version=info.prompt_version,
        scale=manifest.scale,
        mapping=manifest.mapping,
        context_separator=manifest.context_separator,
        backend=manifest.backend,
    )
