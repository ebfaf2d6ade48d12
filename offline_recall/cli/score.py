"""`offline-recall score`: a dataset in, results, a run store and a summary out."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..printable import printable
from ..scorer.registry import reads_context, scorer_kind
from . import COMMANDS
from .engine_log import engine_log_path, engine_messages
from .options import (
    delimiter_option,
    fail_under_option,
    model_files,
    parse_fail_under,
)
from .ray_run import choose_runner, runner_options, score_on_ray
from .run_options import RunChoice, resolve_announced, run_options

if TYPE_CHECKING:
    from rich.console import Console

    from ..data.dataset import Dataset
    from ..runs.execute import RunOutcome
    from ..runs.spec import RunSpec
    from .progress import RunBar


def _output(out: Path | None, fmt: str | None) -> tuple[Path | None, str]:
    """Where results go and in which form: the format follows --out's extension unless given."""
    from ..runs.results import OutputFormat, output_format

    if fmt == "table":
        return out, "table"
    chosen = OutputFormat(fmt) if fmt else (output_format(out) if out else OutputFormat.JSONL)
    if out is not None and fmt is not None and output_format(out) != chosen:
        raise click.ClickException(
            f"--out {out} does not end in .{chosen.value} for --format {fmt}"
        )
    return out or Path(f"results.{chosen.value}"), chosen.value


@click.command(short_help=COMMANDS["score"].help)
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@run_options("run")
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
    help="Read FIELD (id, input, ground_truth, context, output) from COLUMN. Repeatable.",
)
@click.option(
    "--context-sep",
    default=None,
    metavar="TEXT",
    help="CSV and Parquet: the context cell holds chunks joined by TEXT (default: a JSON list).",
)
@delimiter_option
@fail_under_option
@click.option(
    "--max-failed",
    type=click.IntRange(min=0),
    default=None,
    help="With --fail-under: how many rows may fail (status error) before the gate fails "
    "[default: 0].",
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
@runner_options
def score(
    data: Path,
    chosen: RunChoice,
    out: Path | None,
    fmt: str | None,
    mapping: tuple[str, ...],
    context_sep: str | None,
    delimiter: str | None,
    fail_under: tuple[str, ...],
    max_failed: int | None,
    store_path: Path | None,
    restart: bool,
    no_cache: bool,
    runner: str,
    ray_address: str | None,
    workers: int,
    gpus: float,
    cpus: float,
    shards: Path | None,
    merge: bool,
) -> None:
    """Score DATA (.jsonl, .ndjson, .json, .csv or .parquet): input, ground truth, context.

    Field names of Mastra (groundTruth), RAGAS (user_input, reference, retrieved_contexts,
    response, or its older question, ground_truth, contexts, answer; a ground_truths list is
    one ground truth, joined by newlines) and offline-recall (ground_truth, context) are
    detected; --map names any other column. Other fields go into each record as metadata.

    Results are committed to a run store as they finish; running the same command again after
    an interruption scores only the rows not stored yet. The output file is written from the
    store once every row is in it.
    """
    # Each module is imported where it is first needed, so that an input refused before
    # scoring starts costs only the reading of it.
    from ..data.dataset import open_dataset
    from ..data.destinations import check_destinations
    from ..data.fields import parse_mapping
    from ..runs.store import default_store_path

    started = time.perf_counter()
    where = choose_runner(
        runner, ray_address, workers, gpus, cpus, shards, merge, claim_cache=not no_cache
    )
    scorers = chosen.scorers
    gates = parse_fail_under(fail_under, scorers, chosen.scale)
    if max_failed is None and gates:
        max_failed = 0
    out, form = _output(out, fmt)
    if store_path is None and out is not None and where.ray is None:
        store_path = default_store_path(out)
    read = {str(data): data} | model_files("--model", chosen.model)
    check_destinations(
        _destinations(out, store_path, chosen.verbose),
        read | model_files("--judge-model", chosen.judge_model),
    )
    fields = parse_mapping(mapping)
    dataset = open_dataset(
        data, fields, context_sep, context_required=reads_context(scorers), delimiter=delimiter
    )
    if dataset.total == 0:
        raise click.ClickException(f"{data.name} holds no rows: nothing to score")
    _check_rows(data.name, dataset, scorers)

    from rich.console import Console
    from rich.text import Text

    from ..runs.claim_cache import ClaimCache
    from ..runs.execute import run_dataset
    from ..runs.local import LocalRunner
    from ..runs.manifest import InputSpec
    from ..runs.store import RunStore
    from .progress import LOADING, RunBar

    console = Console(stderr=True)
    reading = f"reading {data.name}: {dataset.detection.describe()}"
    console.print(Text(printable(reading)), soft_wrap=True)
    run = resolve_announced(console, chosen, "score DATA")
    spec = run.spec
    judged = [s for s in spec.scorers if scorer_kind(s.id).asks_model()]
    given = InputSpec.of(data, fields, context_sep, dataset.sha256, delimiter)
    log = None if chosen.verbose else engine_log_path("score", out)

    if where.ray is not None:
        if store_path is not None:
            raise click.ClickException("--store is the local runner's; on Ray give --shards DIR")
        with _resumable(console, "the run's shards"), engine_messages(console, log):
            ray = score_on_ray(where, run, dataset, given, out, form, restart, console)
        written = out if where.merge else None
        _report(console, started, None, form, ray, spec, written, gates, max_failed, dataset.where)
        return
    cache = None if no_cache else ClaimCache()
    try:
        with (
            _resumable(console, None if store_path is None else f"the run store {store_path}"),
            RunStore(store_path, restart=restart) as store,
            engine_messages(console, log),
        ):
            first = LOADING if judged else "scoring: the scorers ask no model"
            bar = RunBar(console, dataset.total, first=first, done=len(store.done()))
            local = LocalRunner(store, bar, cache)
            outcome = run_dataset(
                run, dataset, given, local, out, keep_records=form == "table", say=_say(console)
            )
    finally:
        if cache is not None:
            cache.close()

    _report(console, started, bar, form, outcome, spec, out, gates, max_failed, dataset.where)


def _say(console: Console) -> Callable[[str], None]:
    """Prints what a run says (resuming, where it scores) escaped, never read as markup."""
    from rich.text import Text

    def say(line: str) -> None:
        console.print(Text(printable(line)), soft_wrap=True)

    return say


def resume_command(argv: Sequence[str]) -> str:
    """The command that resumes an interrupted `score`: the one given (`argv`, as
    `sys.argv` holds it), less `--restart`, quoted for a POSIX shell."""
    program = argv[0] if argv and Path(argv[0]).name == "offline-recall" else "offline-recall"
    return shlex.join([program, *(a for a in argv[1:] if a != "--restart")])


@contextmanager
def _resumable(console: Console, store: str | None) -> Iterator[None]:
    """A run stopped from the keyboard (Ctrl-C) ends saying how many rows `store` keeps
    and the command that scores the others, and exits 130, as a shell's interrupted command
    does; None for `store`: the run keeps none."""
    from rich.text import Text

    from ..runs.execute import Interrupted

    try:
        yield
    except Interrupted as stopped:
        command = resume_command(sys.argv)
        if store is None:
            said = "interrupted: this run keeps no store (give --out to keep one); run again:"
        elif stopped.kept == 0:
            said = "interrupted before any row was kept; the same command starts again:"
        else:
            left = stopped.total - stopped.kept
            said = (
                f"interrupted: {stopped.kept} of {stopped.total} rows are kept in {store}; "
                f"the same command scores the other {left}:"
            )
        console.print(Text(said, style="yellow"), soft_wrap=True)
        console.print(Text(f"  {command}"), soft_wrap=True)
        raise click.exceptions.Exit(130) from None


def _check_rows(name: str, dataset: Dataset, scorers: list[str]) -> None:
    """Refuse, before any model loads, a dataset none of whose rows can be scored (with the
    first reasons), or one in which no row holds a field that a scorer of the run reads."""
    from ..data.dataset import survey

    needed: dict[tuple[str, ...], list[str]] = {}
    for sid in scorers:
        for fields in scorer_kind(sid).row_fields():
            needed.setdefault(fields, []).append(sid)
    # No ground truth's key in the records read to detect the names: said without reading
    # the rows (a scorer that judges the output instead is not held back by it). Records
    # none of which could be read show no names at all: the survey says why they cannot.
    has_output = dataset.detection.found["output"] is not None
    needing = [
        s
        for s in scorers
        if scorer_kind(s).needs_ground_truth()
        and not (has_output and scorer_kind(s).output_for_ground_truth)
    ]
    named = bool(dataset.detection.columns) or any(isinstance(r, dict) for _, r in dataset.head)
    if (
        needing
        and named
        and (missing := dataset.detection.missing_ground_truth(name, " and ".join(needing)))
    ):
        raise click.ClickException(missing)
    found = survey(dataset, list(needed))
    if not found.scorable:
        lines = [f"{name}: none of its {found.read} rows can be scored:"]
        lines += [f"  {printable(row.message)}" for row in found.refused]
        if found.read > len(found.refused):
            lines.append(f"  and {found.read - len(found.refused)} more")
        raise click.ClickException("\n".join(lines))
    for fields, sids in needed.items():
        if not found.present.intersection(fields):
            raise click.ClickException(
                dataset.detection.missing(fields[0], name, " and ".join(sids))
            )


def _destinations(out: Path | None, store: Path | None, verbose: bool) -> list[tuple[str, Path]]:
    """Every file a run writes: the results, the manifest and the engine's log beside them
    (none with --verbose), the store, its log and its lock."""
    from ..runs.store import manifest_path, store_files

    paths: list[tuple[str, Path]] = []
    if out is not None:
        paths += [("--out", out), ("the manifest beside --out", manifest_path(out))]
        if not verbose:
            paths += [("the engine's log beside --out", engine_log_path("score", out))]
    if store is not None:
        files = store_files(store)
        paths += [("--store", store)]
        paths += [(f"the {what}", path) for what, path in files.items() if path != store]
    return paths


def _report(
    console: Console,
    started: float,
    bar: RunBar | None,
    form: str,
    outcome: RunOutcome,
    spec: RunSpec,
    out: Path | None,
    gates: dict[str, float],
    max_failed: int | None,
    position: str,
) -> None:
    """The items (as a table), each scorer's summary (its time since `started`, and the chunk
    checks the progress counted), the rows scored and the seconds they took (see
    `RunBar.scoring`; `bar` is None on Ray), the first failed rows, where the results went,
    and the gates."""
    from rich.console import Console
    from rich.text import Text

    from .summary import (
        every_row_failed,
        failed_lines,
        gate_failure,
        items_table,
        missing_truth_line,
        scoring_line,
        summary_table,
    )

    seconds = time.perf_counter() - started
    summaries = outcome.summaries
    checks = {} if bar is None else bar.checks()
    if form == "table":
        Console().print(items_table(outcome.records))
    for sid in spec.scorer_ids:
        if sid in summaries:
            Console().print(summary_table(sid, summaries[sid], seconds, spec, checks.get(sid)))
            if (note := missing_truth_line(sid, summaries[sid])) is not None:
                Console().print(Text(note), soft_wrap=True)
    scoring = None if bar is None else bar.scoring()
    if (scored := scoring_line(scoring, seconds)) is not None:
        Console().print(Text(scored), soft_wrap=True)
    where = str(out) if out is not None else "the items table" if form == "table" else "the run"
    most = max((s.failed for s in summaries.values()), default=0)
    for line in failed_lines(outcome.failed, most, where, position):
        Console().print(Text(line), soft_wrap=True)
    if out is not None:
        console.print(Text(printable(f"results: {out}")), soft_wrap=True)
    failure = every_row_failed(summaries) or gate_failure(summaries, gates, max_failed)
    if failure is not None:
        raise click.ClickException(failure)
