"""Commands on scored runs: `report`, `compare` and `verify`."""

from __future__ import annotations

from pathlib import Path

import click

from ..compare import PairBy, compare_runs
from ..compare_text import comparison_text
from ..results import read_results
from ..verify import verify_run


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
    from ..report import render_report

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
    help="Compare runs scored with different models or prompt versions.",
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
    run_a: Path, run_b: Path, html: Path | None, allow_mismatch: bool, pair_by: str, show: int
) -> None:
    """Compare two scored runs item by item: B minus A, its uncertainty, and flipped verdicts."""
    comparison = compare_runs(
        read_results(run_a),
        read_results(run_b),
        names=(run_a.name, run_b.name),
        pair_by=PairBy(pair_by),
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
    click.echo(comparison_text(comparison, show=show))
    if html is not None:
        from ..report import render_comparison

        html.write_text(render_comparison(comparison), encoding="utf-8")
        click.echo(f"\nwrote {html}")


@click.command()
@click.argument("run", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    help="Re-score only this many rows, chosen at random with --seed [default: every row].",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--show", type=click.IntRange(min=0), default=5, show_default=True, help="Differences printed."
)
def verify(run: Path, sample: int | None, seed: int, show: int) -> None:
    """Re-score RUN (a result file of `score`, or its .run.sqlite store) and compare.

    The model, prompts, library and input file must be the ones in the run's manifest. Exits
    with status 1 when any row's result differs from the recorded one.
    """
    report = verify_run(run, sample, seed)
    differ = len(report.differences)
    click.echo(
        f"{run.name}: {report.checked} rows re-scored, {report.identical} identical, "
        f"{differ} differ"
    )
    for d in report.differences[:show]:
        click.echo(f"line {d.line}: {', '.join(d.fields)} differ")
        click.echo(f"  recorded: {d.recorded}")
        click.echo(f"  now:      {d.now}")
    if differ:
        raise click.ClickException(f"{differ} of {report.checked} rows differ from the run")
