"""The report's items are in its HTML, readable with scripts off: the first page of them as
escaped markup outside any script, a note saying how many more the script shows; the script
adds paging, sorting, filters and search on top."""

from __future__ import annotations

import re
from pathlib import Path

from offline_recall.report.html import PAGE

from .test_report_pages import recall_record, report

_SCRIPTS = re.compile(r"<script\b.*?</script>", re.DOTALL)
_NOSCRIPT = re.compile(r"<noscript>(.*?)</noscript>", re.DOTALL)


def _without_scripts(page: Path) -> str:
    """The page as a browser with scripts off shows it: no script, <noscript> shown."""
    return _NOSCRIPT.sub(r"\1", _SCRIPTS.sub("", page.read_text(encoding="utf-8")))


def _articles(shown: str) -> dict[int, str]:
    found = re.findall(r'(<article class="item" id="line-(\d+)".*?</article>)', shown, re.DOTALL)
    return {int(line): markup for markup, line in found}


def test_every_item_of_a_short_run_is_in_the_html_with_its_id_and_score(tmp_path: Path) -> None:
    records = [recall_record(n, f"row-{n}") for n in range(1, 13)]
    shown = _without_scripts(report(records, tmp_path))
    articles = _articles(shown)
    assert sorted(articles) == list(range(1, 13))
    for n, markup in articles.items():
        assert f'<span class="id">row-{n}</span>' in markup
        assert '<span class="score-label">recall</span> 0.00</span>' in markup
        assert "Paris is in France." in markup  # its verdicts too
    assert "All 12 items, in line order: allow scripts to sort, filter and search them." in shown
    assert '<div class="controls" id="controls" hidden>' in shown  # they need the script


def test_a_long_run_has_its_first_page_in_the_html_and_says_how_many_more(tmp_path: Path) -> None:
    records = [recall_record(n, f"row-{n}") for n in range(1, 251)]
    page = report(records, tmp_path)
    shown = _without_scripts(page)
    assert sorted(_articles(shown)) == list(range(1, PAGE + 1))
    note = f"The first {PAGE} of 250 items, in line order: allow scripts to see the others"
    assert note in shown
    docs = Path(__file__).resolve().parents[2] / "docs" / "report.md"
    assert note in " ".join(docs.read_text(encoding="utf-8").split())  # as the docs quote it
    html = page.read_text(encoding="utf-8")
    assert html.count('<article class="item"') == 250  # each item once: the rest wait as text
    assert html.count('class="item-source"') == 250 - PAGE


def test_an_item_s_text_is_escaped_in_the_markup_outside_the_scripts(tmp_path: Path) -> None:
    hostile = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'
    records = [recall_record(1, hostile, claim=hostile, input=hostile, context=[hostile])]
    html = report(records, tmp_path).read_text(encoding="utf-8")
    assert "<img" not in html and "alert(2)</script>" not in html
    article = _articles(_without_scripts(tmp_path / "r.html"))[1]
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;&lt;/script&gt;" in article
