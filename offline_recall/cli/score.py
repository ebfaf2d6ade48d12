"""`offline-recall score`: a dataset in, results, a run store and a summary out."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..printable import printable
from ..scorer.registry import scorer_kind
from . import COMMANDS
from .engine_log import engine_log_path, engine_messages
from .options import (
    delimiter_option,
    fail_under_option,
    file_option,
    number_option,
    parse_engine_options,
    parse_fail_under,
)
from .ray_run import RunnerChoice, RunnerOptions, ShardBar, runner_options
from .run_options import RunChoice, announce, run_options

if TYPE_CHECKING:
    from rich.console import Console

    from ..runs.dataset_scores import DatasetScores
    from ..runs.plan import RunPlan, ScoreOptions
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
@file_option(
    "--out",
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
@number_option(
    "--max-failed",
    at_least=0,
    default=None,
    show_default=False,
    help="With --fail-under: how many rows may fail (status error) before the gate fails "
    "[default: 0].",
)
@file_option(
    "--store",
    "store_path",
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
    given_runner: RunnerOptions,
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
    from ..runs.plan import RunPlan

    started = time.perf_counter()
    where = given_runner.choose(claim_cache=not no_cache)
    gates = parse_fail_under(fail_under, chosen.scorers, chosen.scale)
    if max_failed is None and gates:
        max_failed = 0
    out, form = _output(out, fmt)
    options = _options(
        chosen, where, out, store_path, mapping, context_sep, delimiter, restart, no_cache
    )
    log = None if chosen.verbose else engine_log_path("score", out)
    beside = [] if out is None or log is None else [("the engine's log beside --out", log)]
    with RunPlan.open(data, options, also_writes=beside) as plan:
        from rich.console import Console
        from rich.text import Text

        console = Console(stderr=True)
        reading = f"reading {data.name}: {plan.dataset.detection.describe()}"
        console.print(Text(printable(reading)), soft_wrap=True)
        run = announce(console, plan.run, chosen.no_judge_note, "score DATA")
        shown = _Shown(console, run.spec, on_ray=plan.shards is not None)
        with _resumable(console, _keeps(plan)), engine_messages(console, log):
            scored = plan.score(shown, say=_say(console))
        position = plan.dataset.where
    _report(console, started, shown.bar, form, scored, gates, max_failed, position)


def _options(
    chosen: RunChoice,
    where: RunnerChoice,
    out: Path | None,
    store: Path | None,
    mapping: tuple[str, ...],
    context_sep: str | None,
    delimiter: str | None,
    restart: bool,
    no_cache: bool,
) -> ScoreOptions:
    """What the command line chose, as `score` takes it."""
    from ..data.fields import parse_mapping
    from ..runs.plan import ScoreOptions

    return ScoreOptions(
        scorers=tuple(chosen.scorers),
        model=chosen.model,
        backend=chosen.backend,
        engine_options=parse_engine_options(chosen.engine_option),
        scale=chosen.scale,
        judge_model=chosen.judge_model,
        judge_backend=chosen.judge_backend,
        map=parse_mapping(mapping),
        context_sep=context_sep,
        delimiter=delimiter,
        out=out,
        store=store,
        resume=not restart,
        cache=not no_cache,
        runner="local" if where.ray is None else "ray",
        ray=where.ray,
        shards=where.shards,
        merge=where.merge,
    )


def _keeps(plan: RunPlan) -> str | None:
    """What keeps the rows a run scored, as an interrupted run names it; None: nothing."""
    if plan.shards is not None:
        return "the run's shards"
    return None if plan.store is None else f"the run store {plan.store}"


class _Shown:
    """The progress `score` shows, made when the run knows its rows: on the local runner its
    bar, kept for the summary (the chunk checks it counted, the rows' pace); on Ray the bar of
    committed shards."""

    def __init__(self, console: Console, spec: RunSpec, *, on_ray: bool) -> None:
        from .progress import LOADING

        self._console = console
        self._on_ray = on_ray
        judged = any(scorer_kind(s.id).asks_model() for s in spec.scorers)
        self._first = LOADING if judged else "scoring: the scorers ask no model"
        self.bar: RunBar | None = None

    def __call__(self, total: int, done: int) -> AbstractContextManager[object]:
        from .progress import RunBar

        if self._on_ray:
            return ShardBar(self._console, total, done)
        self.bar = RunBar(self._console, total, first=self._first, done=done)
        return self.bar


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


def _report(
    console: Console,
    started: float,
    bar: RunBar | None,
    form: str,
    scored: DatasetScores,
    gates: dict[str, float],
    max_failed: int | None,
    position: str,
) -> None:
    """The items (as a table), each scorer's summary (its time since `started`, and the chunk
    checks the progress counted), the rows scored and the seconds they took (see
    `RunBar.scoring`; `bar` is None on Ray), the first failed rows, where the results went
    (`scored.out`), and the gates."""
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
    spec, summaries, out = scored.spec, scored.summaries, scored.out
    checks = {} if bar is None else bar.checks()
    if form == "table":
        Console().print(items_table(list(scored)))
    for sid in spec.scorer_ids:
        if sid in summaries:
            Console().print(summary_table(sid, summaries[sid], seconds, spec, checks.get(sid)))
            if (note := missing_truth_line(sid, summaries[sid])) is not None:
                Console().print(Text(note), soft_wrap=True)
    scoring = None if bar is None else bar.scoring()
    if (rate := scoring_line(scoring, seconds)) is not None:
        Console().print(Text(rate), soft_wrap=True)
    where = str(out) if out is not None else "the items table" if form == "table" else "the run"
    most = max((s.failed for s in summaries.values()), default=0)
    for line in failed_lines(scored.failed, most, where, position):
        Console().print(Text(line), soft_wrap=True)
    if out is not None:
        console.print(Text(printable(f"results: {out}")), soft_wrap=True)
    failure = every_row_failed(summaries) or gate_failure(summaries, gates, max_failed)
    if failure is not None:
        raise click.ClickException(failure)
