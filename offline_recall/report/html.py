"""Self-contained HTML pages: the report of a scored run, and the comparison of two runs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import islice

import jinja2

from ..runs.results import ItemRecord
from .comparison import Comparison
from .highlight import highlight_excerpt
from .ranking import Ranking
from .views import ReportView, item_view, report_view


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("offline_recall.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["highlight"] = highlight_excerpt
    return env


def render_report(records: Sequence[ItemRecord], source: str) -> str:
    """The HTML report of a scored run: per scorer a summary and histogram, then each item
    with its verdicts and context."""
    return "".join(report_chunks(report_view(records, source), records))


PAGE = 100
"""Items the report shows at a time. The first page is rendered in the HTML itself, readable
with scripts off; the others wait as inert text that the page's script shows a page at a
time (sorted, filtered and searched), so a long run's page opens as fast as a short one's."""


def report_chunks(view: ReportView, records: Iterable[ItemRecord]) -> Iterator[str]:
    """The report page of `view` (the summary of a run, `report_view`) with `records` (the
    same run, read again) as its items, a piece at a time: a long run is written without the
    page or its records held whole. The page shows the items a page at a time (`PAGE`)."""
    tops = {s.id: s.top for s in view.scorers}
    items = (item_view(record, tops) for record in records)
    first = list(islice(items, PAGE))
    template = _environment().get_template("report.html.j2")
    return template.generate(view=view, first=first, rest=items, page=PAGE)


def render_comparison(comparisons: Sequence[Comparison]) -> str:
    """The HTML page of a comparison, per scorer: means, difference, win/tie/loss, and the
    flipped verdicts, worst items first."""
    return _environment().get_template("compare.html.j2").render(cs=comparisons)


def render_ranking(rankings: Sequence[Ranking]) -> str:
    """The HTML page of several runs ranked, per scorer: the ranking, a forest plot of each
    run's paired difference against the best, and the items where the runs disagree most."""
    return _environment().get_template("ranking.html.j2").render(rs=rankings)


__all__ = ["render_comparison", "render_ranking", "render_report"]
