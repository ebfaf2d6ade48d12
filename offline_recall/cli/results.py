"""Commands on a scored run's results: `report`, `compare` and `verify`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from ..data.destinations import check_destinations, written_whole
from ..engines.server import refused_credentials
from ..printable import SHOWN, printable
from ..report.comparison import Comparison, PairBy, compare_runs
from ..report.comparison_text import comparison_text
from ..runs.results import ItemRecord, read_results
from ..runs.run_manifest import RunManifest
from ..runs.store import manifest_path, read_manifest, run_files
from ..runs.verify import Contact, verify_run
from ..scorer.registry import RECALL, SCORERS
from ..urls import credentials_in
from . import COMMANDS
from .engine_log import engine_log_path, engine_messages, verbose_option
from .options import file_option, number_option, parse_scorers
from .progress import RunBar

if TYPE_CHECKING:
    from ..report.ranking import Ranking


def _manifest_beside(results: Path) -> RunManifest | None:
    beside = manifest_path(results)
    if not beside.is_file():
        return None
    return read_manifest(beside)


def _spec_mismatch(a: Path, b: Path, scorer: str) -> list[str] | None:
    """How the runs' specs differ where `scorer`'s results could (its own setup, the model,
    the engine, the versions; not the runs' other scorers), from the manifests beside them;
    None without both."""
    ma, mb = _manifest_beside(a), _manifest_beside(b)
    if ma is None or mb is None:
        return None
    return ma.spec.differences(mb.spec, scorer)


def _shared_scorers(
    runs: list[list[ItemRecord]], chosen: str | None, names: list[str]
) -> list[str]:
    """The scorers compared: those given, else every scorer the runs share, saying on
    stderr which scorers it leaves out (those some run lacks)."""
    every = "both runs" if len(runs) == 2 else "every run"
    held = [list(dict.fromkeys(sid for r in run for sid in r.results)) for run in runs]
    shared = [sid for sid in held[0] if all(sid in other for other in held[1:])]
    if chosen is None:
        for sid in dict.fromkeys(s for h in held for s in h if s not in shared):
            only = " and ".join(printable(n) for n, h in zip(names, held, strict=True) if sid in h)
            click.echo(f"compare: {printable(sid)} is left out: only {only} scored it", err=True)
    if chosen is not None:
        wanted = parse_scorers(chosen)
        missing = [sid for sid in wanted if sid not in shared]
        if missing:
            raise click.ClickException(
                f"not in {every}: {', '.join(missing)} "
                f"(shared: {printable(', '.join(shared)) or 'none'})"
            )
        return wanted
    if not shared:
        raise click.ClickException("the runs share no scorer")
    return shared


def _run_names(runs: tuple[Path, ...]) -> list[str]:
    """What each run is called in the output: its file name, or its path where two share it."""
    names = [p.name for p in runs]
    return names if len(set(names)) == len(names) else [str(p) for p in runs]


def _baseline(runs: tuple[Path, ...], baseline: Path | None) -> int | None:
    if baseline is None:
        return None
    for i, run in enumerate(runs):
        if run.resolve() == baseline.resolve():
            return i
    raise click.ClickException(
        f"--fail-if-worse {baseline} is not one of the runs compared; give it as a RUN too"
    )


def _refuse_mismatch(mismatch: tuple[str, ...], allow: bool) -> None:
    if mismatch and not allow:
        raise click.ClickException(
            f"the runs differ ({'; '.join(mismatch)}); pass --allow-mismatch to compare them anyway"
        )


def _compare_two(
    runs: tuple[Path, ...],
    records: list[list[ItemRecord]],
    scorers: list[str],
    pair_by: PairBy,
    allow_mismatch: bool,
) -> list[Comparison]:
    (run_a, run_b), (a, b) = runs, records
    comparisons: list[Comparison] = []
    for sid in scorers:
        mismatch = _spec_mismatch(run_a, run_b, sid)
        comparison = compare_runs(
            a, b, scorer=sid, names=(run_a.name, run_b.name), pair_by=pair_by, mismatch=mismatch
        )
        _refuse_mismatch(comparison.mismatch, allow_mismatch)
        if comparison.paired == 0:
            raise click.ClickException(
                f"no item of {run_a.name} pairs with one of {run_b.name} by {comparison.paired_by}"
            )
        comparisons.append(comparison)
    return comparisons


def _rank(
    runs: tuple[Path, ...],
    records: list[list[ItemRecord]],
    scorers: list[str],
    pair_by: PairBy,
    allow_mismatch: bool,
) -> list[Ranking]:
    from ..report.ranking import rank_runs

    rankings: list[Ranking] = []
    for sid in scorers:
        mismatch = [_spec_mismatch(runs[0], other, sid) for other in runs[1:]]
        ranking = rank_runs(
            records, _run_names(runs), scorer=sid, pair_by=pair_by, mismatch=mismatch
        )
        _refuse_mismatch(ranking.mismatch, allow_mismatch)
        rankings.append(ranking)
    return rankings


def _gate(
    records: list[list[ItemRecord]],
    names: list[str],
    base: int,
    scorers: list[str],
    pair_by: PairBy,
    margin: float,
) -> None:
    """Print whether any run is worse than the baseline run; exit with status 1 if one is."""
    from ..report.gate import regression

    found = []
    for sid in scorers:
        for i, other in enumerate(records):
            if i == base:
                continue
            names_ = (names[base], names[i])
            c = compare_runs(records[base], other, scorer=sid, names=names_, pair_by=pair_by)
            if (r := regression(c, margin)) is not None:
                found.append(r)
    for r in found:
        click.echo(f"regression: {printable(r.line())}")
    if found:
        raise SystemExit(1)
    measures = ", ".join(kind.measure if (kind := SCORERS.get(s)) else s for s in scorers)
    click.echo(
        f"no regression: no run's {printable(measures)} is below {printable(names[base])}'s "
        f"by more than {margin:g} with the interval of the difference excluding 0"
    )


def _gated_scorers(shared: list[str], chosen: str | None) -> list[str]:
    if chosen is not None:
        return shared
    if RECALL not in shared:
        raise click.ClickException(
            f"--fail-if-worse gates {RECALL}, which the runs do not share; "
            "choose the scorer to gate with --scorer"
        )
    return [RECALL]


@click.command(short_help=COMMANDS["report"].help)
@click.argument("results", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write.",
)
def report(results: Path, out: Path) -> None:
    """Write a self-contained HTML report of a scored run (a file written by `score`)."""
    from ..report.html import report_chunks
    from ..report.views import report_view
    from ..runs.results import iter_results, readable_twice

    check_destinations([("--out", out)], run_files("RESULTS", results))
    # Two passes over the file, neither holding it: the summary of every row, then the items.
    with readable_twice(results) as readable:
        view = report_view(iter_results(readable), source=results.name)
        with written_whole(out) as page:
            page.writelines(report_chunks(view, iter_results(readable)))
    click.echo(f"wrote {out} ({view.count} items)")


@click.command(short_help=COMMANDS["compare"].help)
@click.argument(
    "runs",
    nargs=-1,
    required=True,
    metavar="RUN_A RUN_B [RUN]...",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@file_option(
    "--html",
    help="Also write the comparison as an HTML page.",
)
@click.option(
    "--allow-mismatch",
    is_flag=True,
    help="Compare runs whose specs differ (model, engine, scale, prompts, judge profiles).",
)
@click.option(
    "--scorer",
    "scorer_list",
    default=None,
    metavar="ID[,ID...]",
    help="Compare these scorers' results [default: every scorer the runs share].",
)
@click.option(
    "--pair-by",
    type=click.Choice([p.value for p in PairBy]),
    default=PairBy.AUTO.value,
    show_default=True,
    help="Match items by id, by line, or by id when every run has unique shared ids.",
)
@number_option(
    "--show",
    at_least=0,
    default=10,
    help="Items printed: those with flipped claims (two runs), or where the runs disagree most.",
)
@click.option(
    "--fail-if-worse",
    "baseline",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="BASELINE",
    help="Exit with status 1 when a run's recall (or each --scorer's score) is below that of "
    "BASELINE, one of the RUNs, by more than --margin with the interval of the difference "
    "excluding 0.",
)
@number_option(
    "--margin",
    real=True,
    at_least=0,
    default=0.0,
    help="With --fail-if-worse: how far below the baseline's mean a run may fall.",
)
def compare(
    runs: tuple[Path, ...],
    html: Path | None,
    allow_mismatch: bool,
    scorer_list: str | None,
    pair_by: str,
    show: int,
    baseline: Path | None,
    margin: float,
) -> None:
    """Compare scored runs item by item. Two runs: B minus A, its uncertainty, and flipped
    verdicts. Three or more: a ranking per scorer, each run against the best one.

    Runs are comparable when their specs match in everything but the retrieved context; the
    specs are read from the manifests beside the result files (else from the records).
    """
    if len(runs) < 2:
        raise click.ClickException("compare needs two runs or more")
    if html is not None:
        labels = (
            ["RUN_A", "RUN_B"] if len(runs) == 2 else [f"RUN {i}" for i in range(1, len(runs) + 1)]
        )
        read = {
            n: p
            for label, run in zip(labels, runs, strict=True)
            for n, p in run_files(label, run).items()
        }
        check_destinations([("--html", html)], read)
    base = _baseline(runs, baseline)
    records = [read_results(run) for run in runs]
    scorers = _shared_scorers(records, scorer_list, _run_names(runs))
    how = PairBy(pair_by)
    if len(runs) == 2:
        comparisons = _compare_two(runs, records, scorers, how, allow_mismatch)
        click.echo("\n\n".join(comparison_text(c, show=show) for c in comparisons))
    else:
        from ..report.ranking_text import ranking_text

        rankings = _rank(runs, records, scorers, how, allow_mismatch)
        click.echo("\n\n".join(ranking_text(r, show=show) for r in rankings))
    if html is not None:
        from ..report.html import render_comparison, render_ranking

        page = render_comparison(comparisons) if len(runs) == 2 else render_ranking(rankings)
        with written_whole(html) as f:
            f.write(page)
        click.echo(f"\nwrote {html}")
    if base is not None:
        click.echo("")
        _gate(records, _run_names(runs), base, _gated_scorers(scorers, scorer_list), how, margin)


@click.command(short_help=COMMANDS["verify"].help)
@click.argument("run", type=click.Path(exists=True, path_type=Path))
@number_option(
    "--sample",
    default=None,
    show_default=False,
    help="Re-score only this many rows, chosen at random with --seed [default: every row].",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the random choice of --sample rows (the same seed, the same rows).",
)
@number_option("--show", at_least=0, default=5, help="Differences printed.")
@click.option(
    "--base-url",
    default=None,
    metavar="URL",
    help="A run scored through a model server: the server to re-score through (the address "
    "the run recorded is never contacted on its own).",
)
@click.option(
    "--api-key-env",
    default=None,
    metavar="VAR",
    help="With --base-url: the environment variable holding that server's API key "
    "(a variable the run recorded is never read).",
)
@click.option("--judge-base-url", default=None, metavar="URL", help="The same for a judge model.")
@click.option("--judge-api-key-env", default=None, metavar="VAR", help="Its key's variable.")
@verbose_option
def verify(
    run: Path,
    sample: int | None,
    seed: int,
    show: int,
    base_url: str | None,
    api_key_env: str | None,
    judge_base_url: str | None,
    judge_api_key_env: str | None,
    verbose: bool,
) -> None:
    """Re-score RUN (a result file of `score`, its .run.sqlite store, or a Ray run's shards
    folder) and compare.

    It re-scores with the spec the run's manifest recorded (model, engine options, prompts,
    judge profiles); the library and the input file must be the run's. Exits with status 1
    when any row's record differs from the recorded one. A run scored through a model
    server is re-scored only through the server --base-url names.
    """
    contact = Contact(
        base_url=base_url,
        api_key_env=api_key_env,
        judge_base_url=judge_base_url,
        judge_api_key_env=judge_api_key_env,
    )
    for flag, url in (("--base-url", base_url), ("--judge-base-url", judge_base_url)):
        if url is not None and (found := credentials_in(url)):
            raise click.ClickException(f"{flag} {refused_credentials(found)}")
        if url is not None:
            click.echo(
                f"verify: contacting only {printable(url)} (given on the command line)", err=True
            )
    console = Console(stderr=True)
    log = None if verbose else engine_log_path("verify")
    with engine_messages(console, log), RunBar(console, what="rows re-scored") as bar:
        report = verify_run(run, sample, seed, bar, contact)
    for change in report.environment:
        click.echo(f"warning: engine package changed since the run: {printable(change)}", err=True)
    differ = len(report.differences)
    click.echo(
        f"{printable(run.name)}: {report.checked} row{'' if report.checked == 1 else 's'} "
        f"re-scored, {report.identical} identical, {differ} differ"
    )
    for d in report.differences[:show]:
        click.echo(f"line {d.line}: {printable(', '.join(d.fields))} differ")
        click.echo(f"  recorded: {_where_it_differs(d.recorded, d.now)}")
        click.echo(f"  now:      {_where_it_differs(d.now, d.recorded)}")
    if differ:
        raise click.ClickException(f"{differ} of {report.checked} rows differ from the run")


def _where_it_differs(text: str, other: str) -> str:
    """A record of a difference as printed: whole when it is short, else from a little before
    where it first differs from `other` (a record with a long context differs past its
    start)."""
    if len(text) <= SHOWN:
        return printable(text)
    same = zip(text, other, strict=False)
    at = next((i for i, (a, b) in enumerate(same) if a != b), min(len(text), len(other)))
    start = max(at - SHOWN // 4, 0)
    return ("…" if start else "") + printable(text[start:])
