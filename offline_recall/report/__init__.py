"""Self-contained HTML pages: the report of a scored run, and the comparison of two runs."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import jinja2

from ..compare import Comparison
from ..results import ResultRecord
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


def render_report(records: Sequence[ResultRecord], source: str) -> str:
    """The HTML report of a scored run: summary, histogram, items with claims and context."""
    return _environment().get_template("report.html.j2").render(view=report_view(records, source))


def render_comparison(comparison: Comparison) -> str:
    """The HTML page of a comparison: means, difference, win/tie/loss, flips worst first."""
    return _environment().get_template("compare.html.j2").render(c=comparison)


__all__ = ["render_comparison", "render_report"]
