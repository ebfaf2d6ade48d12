"""Commands on scored runs: `report`, `compare` and `verify`."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from ..report.comparison import Comparison, PairBy, compare_runs
from ..report.comparison_text import comparison_text
from ..runs.manifest import RunManifest
from ..runs.results import ItemRecord, read_results
from ..runs.store import manifest_path
from ..runs.verify import verify_run
from .options import parse_scorers
from .progress import RunBar


def _manifest_beside(results: Path) -> RunManifest | None:
    beside = manifest_path(results)
    if not beside.is_file():
        return None
    return RunManifest.model_validate_json(beside.read_text(encoding="utf-8"))


def _spec_mismatch(a: Path, b: Path) -> list[str] | None:
    """How the runs' specs differ, from the manifests beside them; None without both."""
    ma, mb = _manifest_beside(a), _manifest_beside(b)
    if ma is None or mb is None:
        return None
    return ma.spec.differences(mb.spec)


def _shared_scorers(a: list[ItemRecord], b: list[ItemRecord], chosen: str | None) -> list[str]:
    in_a = list(dict.fromkeys(sid for r in a for sid in r.results))
    in_b = {sid for r in b for sid in r.results}
    shared = [sid for sid in in_a if sid in in_b]
    if chosen is not None:
        wanted = parse_scorers(chosen)
        missing = [sid for sid in wanted if sid not in shared]
        if missing:
            raise click.ClickException(
                f"not in both runs: {', '.join(missing)} (shared: {', '.join(shared) or 'none'})"
            )
        return wanted
    if not shared:
        raise click.ClickException("the runs share no scorer")
    return shared


@click.command()
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
    from ..report.html import render_report

    records = read_results(results)
    out.write_text(render_report(records, source=results.name), encoding="utf-8")
    click.echo(f"wrote {out} ({len(records)} items)")


@click.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--html",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
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
    help="Compare these scorers' results [default: every scorer both runs have].",
)
@click.option(
    "--pair-by",
    type=click.Choice([p.value for p in PairBy]),
    default=PairBy.AUTO.value,
    show_default=True,
    help="Match items by id, by line, or by id when both runs have unique shared ids.",
)
@click.option(
    "--show",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Items whose flipped claims are printed.",
)
def compare(
    run_a: Path,
    run_b: Path,
    html: Path | None,
    allow_mismatch: bool,
    scorer_list: str | None,
    pair_by: str,
    show: int,
) -> None:
    """Compare two scored runs item by item: B minus A, its uncertainty, and flipped verdicts.

    Runs are comparable when their specs match in everything but the retrieved context; the
    specs are read from the manifests beside the result files (else from the records).
    """
    a, b = read_results(run_a), read_results(run_b)
    mismatch = _spec_mismatch(run_a, run_b)
    comparisons: list[Comparison] = []
    for sid in _shared_scorers(a, b, scorer_list):
        comparison = compare_runs(
            a,
            b,
            scorer=sid,
            names=(run_a.name, run_b.name),
            pair_by=PairBy(pair_by),
            mismatch=mismatch,
        )
        if comparison.mismatch and not allow_mismatch:
            raise click.ClickException(
                f"the runs differ ({'; '.join(comparison.mismatch)}); "
                "pass --allow-mismatch to compare them anyway"
            )
        if comparison.paired == 0:
            raise click.ClickException(
                f"no item of {run_a.name} pairs with one of {run_b.name} by {comparison.paired_by}"
            )
        comparisons.append(comparison)
    click.echo("\n\n".join(comparison_text(c, show=show) for c in comparisons))
    if html is not None:
        from ..report.html import render_comparison

        html.write_text(render_comparison(comparisons), encoding="utf-8")
        click.echo(f"\nwrote {html}")


@click.command()
@click.argument("run", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    help="Re-score only this many rows, chosen at random with --seed [default: every row].",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the random choice of --sample rows (the same seed, the same rows).",
)
@click.option(
    "--show", type=click.IntRange(min=0), default=5, show_default=True, help="Differences printed."
)
def verify(run: Path, sample: int | None, seed: int, show: int) -> None:
    """Re-score RUN (a result file of `score`, its .run.sqlite store, or a Ray run's shards
    folder) and compare.

    It re-scores with the spec the run's manifest recorded (model, engine options, prompts,
    judge profiles); the library and the input file must be the run's. Exits with status 1
    when any row's record differs from the recorded one.
    """
    with RunBar(Console(stderr=True), what="rows re-scored") as bar:
        report = verify_run(run, sample, seed, bar)
    for change in report.environment:
        click.echo(f"warning: engine package changed since the run: {change}", err=True)
    differ = len(report.differences)
    click.echo(
        f"{run.name}: {report.checked} row{'' if report.checked == 1 else 's'} re-scored, "
        f"{report.identical} identical, {differ} differ"
    )
    for d in report.differences[:show]:
        click.echo(f"line {d.line}: {', '.join(d.fields)} differ")
        click.echo(f"  recorded: {d.recorded}")
        click.echo(f"  now:      {d.now}")
    if differ:
        raise click.ClickException(f"{differ} of {report.checked} rows differ from the run")
