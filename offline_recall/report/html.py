"""Self-contained HTML pages: the report of a scored run, and the comparison of two runs."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import jinja2

from ..runs.results import ItemRecord
from .comparison import Comparison
from .highlight import highlight_excerpt
from .views import report_view


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
    return _environment().get_template("report.html.j2").render(view=report_view(records, source))


def render_comparison(comparisons: Sequence[Comparison]) -> str:
    """The HTML page of a comparison, per scorer: means, difference, win/tie/loss, and the
    flipped verdicts, worst items first."""
    return _environment().get_template("compare.html.j2").render(cs=comparisons)


__all__ = ["render_comparison", "render_report"]
