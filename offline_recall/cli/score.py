"""`offline-recall score`: a dataset in, results, a run store and a summary out."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..data.dataset import open_dataset
from ..data.fields import parse_mapping
from ..data.results import ItemRecord, OutputFormat, output_format
from ..runs.claim_cache import ClaimCache
from ..runs.manifest import InputSpec, RunIdentity, build_manifest
from ..runs.runner import score_into
from ..runs.spec import RunSpec, resolve_spec
from ..runs.store import RunStore, default_store_path, manifest_path, write_manifest
from ..runs.summary import Summary
from ..scorers import SCORERS, scorer_kind
from ..scorers.base import Status
from ..scorers.recall import ID as RECALL
from .options import (
    fail_under_option,
    model_and_engine,
    parse_engine_options,
    parse_fail_under,
    parse_scorers,
)


def _summary_table(scorer_id: str, summary: Summary, seconds: float, spec: RunSpec) -> Table:
    kind = scorer_kind(scorer_id)
    setup = spec.scorer(scorer_id).setup
    table = Table(title=kind.name, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    mean = "n/a (no item scored)" if summary.mean is None else f"{summary.mean:.4f}"
    rows = [
        (f"mean {kind.measure}", mean),
        ("items", str(summary.items)),
        ("ok", str(summary.by_status[Status.OK])),
        ("no ground truth", str(summary.by_status[Status.NO_GROUND_TRUTH])),
        (f"no {kind.unit}", str(summary.by_status[Status.NO_CLAIMS])),
        ("no context", str(summary.by_status[Status.NO_CONTEXT])),
        ("failed", str(summary.failed)),
        (f"{kind.unit} {kind.positive}", f"{summary.positive} / {summary.judged}"),
        ("time", f"{seconds:.1f} s"),
        ("model", spec.model_fingerprint),
        ("prompt version", setup.prompt_version),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _remove_store(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def _removed_if_empty(store: RunStore, fresh: bool) -> Iterator[None]:
    """A store this run created is removed if the run fails before it holds a row (a model
    that cannot load leaves nothing behind)."""
    try:
        yield
    except BaseException:
        if fresh and store.path is not None and not store.done():
            store.close()
            _remove_store(store.path)
        raise


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


def _items_table(records: Sequence[ItemRecord]) -> Table:
    table = Table(title="Items")
    table.add_column("line", justify="right")
    table.add_column("id")
    table.add_column("scorer")
    table.add_column("status")
    table.add_column("score", justify="right")
    table.add_column("positive", justify="right")
    table.add_column("negative verdicts or error", overflow="fold")
    for r in records:
        for sid, result in r.results.items():
            judgments = result.judgments()
            negative = "; ".join(j.text for j in judgments if not j.positive)
            table.add_row(
                str(r.line),
                "" if r.id is None else str(r.id),
                scorer_kind(sid).measure,
                result.status.value,
                "n/a" if result.score is None else f"{result.score:.2f}",
                f"{sum(j.positive for j in judgments)}/{len(judgments)}",
                result.error or negative,
            )
    return table


@click.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@model_and_engine
@click.option(
    "--scorer",
    "scorer_list",
    default=RECALL,
    show_default=True,
    metavar="ID[,ID...]",
    help=f"Scorers to run, comma-separated ({', '.join(SCORERS)}); all in one pass.",
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
@fail_under_option
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
    engine_option: tuple[str, ...],
    scorer_list: str,
    out: Path | None,
    fmt: str | None,
    mapping: tuple[str, ...],
    context_sep: str | None,
    scale: float,
    fail_under: tuple[str, ...],
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
    scorers = parse_scorers(scorer_list)
    gates = parse_fail_under(fail_under, scorers)
    out, form = _output(out, fmt)
    fields = parse_mapping(mapping)
    dataset = open_dataset(data, fields, context_sep)
    console.print(Text(f"reading {data.name}: {dataset.detection.describe()}"), soft_wrap=True)
    for warning in dataset.detection.warnings():
        console.print(Text(f"warning: {warning}", style="yellow"), soft_wrap=True)
    spec = resolve_spec(
        model,
        engine=backend,
        engine_options=parse_engine_options(engine_option),
        scorers=scorers,
        scale=scale,
    )
    given = InputSpec.of(data, fields, context_sep)
    manifest = build_manifest(spec, given)

    if store_path is None and out is not None:
        store_path = default_store_path(out)
    if restart and store_path is not None:
        _remove_store(store_path)
    fresh = store_path is None or not store_path.exists()
    progress = Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )
    cache = None if no_cache else ClaimCache()
    try:
        with RunStore(store_path) as store, _removed_if_empty(store, fresh):
            store.claim(RunIdentity.of(spec, given))
            store.set_manifest(manifest)
            scoring = spec.build(claim_cache=cache)
            try:
                with progress:
                    task = progress.add_task("scoring", total=dataset.total)
                    score_into(
                        scoring,
                        dataset,
                        store,
                        spec.digest,
                        lambda n: progress.update(task, completed=n),
                    )
            finally:
                scoring.close()
            if out is not None:
                store.export(out, output_format(out), spec.scorer_ids)
                write_manifest(manifest_path(out), manifest)
            summaries = store.summaries()
            shown = list(store.records()) if form == "table" else []
    finally:
        if cache is not None:
            cache.close()

    seconds = time.perf_counter() - started
    if form == "table":
        Console().print(_items_table(shown))
    for sid in spec.scorer_ids:
        if sid in summaries:
            Console().print(_summary_table(sid, summaries[sid], seconds, spec))
    if out is not None:
        console.print(f"results: {out}")
    for sid, gate in gates.items():
        summary = summaries.get(sid)
        mean = None if summary is None else summary.mean
        if mean is None or mean < gate:
            shown_mean = "none" if mean is None else f"{mean:.4f}"
            measure = scorer_kind(sid).measure
            raise click.ClickException(
                f"mean {measure} {shown_mean} is under --fail-under {gate} ({sid})"
            )
