"""The HTML report: its content, and the page as headless Chromium renders it."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.report.highlight import highlight

from ..conftest import EXAMPLE, recall

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="headless Chromium not installed (/usr/bin/chromium; apt-get install chromium)",
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example scored on the fake backend, with one malformed line added."""
    folder = tmp_path_factory.mktemp("report")
    data = folder / "data.jsonl"
    data.write_text(EXAMPLE.read_text() + '{"id": "broken", "groundTruth": "A."}\n')
    out = folder / "results.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def page(run: Path) -> Path:
    out = run.with_name("report.html")
    result = CliRunner().invoke(main, ["report", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out} (13 items)" in result.output
    return out


def test_report_shows_summary_histogram_claims_and_failures(run: Path, page: Path) -> None:
    html = page.read_text()
    records = [recall(json.loads(line)) for line in run.read_text().splitlines()]
    scores = [r["score"] for r in records if r["score"] is not None]
    assert f'<div class="value" id="mean">{sum(scores) / len(scores):.4f}</div>' in html
    assert re.search(r"95% CI \[0\.\d{4}, 0\.\d{4}\]<br>percentile bootstrap", html)
    assert 'id="failed-count">1<' in html
    assert "fake@0000000000000000" in html
    bars = [int(n) for n in re.findall(r'<div class="bar" [^>]*><span>(\d+)</span>', html)]
    assert len(bars) == 10 and sum(bars) == 12
    assert bars[-1] == sum(s == 1.0 for s in scores)
    assert (
        "line 13</a> (<bdi>broken</bdi>): <code>missing field &#39;context&#39; (fields found:"
        in html
    )
    # a supported claim shows its chunk with the claim's words marked
    assert (
        '<span class="chunk-label">chunk 0</span>The <mark>Eiffel Tower</mark> is a wrought-iron'
        in html
    )
    assert html.count('<article class="item"') == 13


def test_report_is_self_contained(page: Path) -> None:
    html = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "<script src" not in html and "@import" not in html


def test_highlight_escapes_and_marks_phrases() -> None:
    assert str(highlight("A <b>big</b> red tower.", "The big red tower")) == (
        "A &lt;b&gt;<mark>big</mark>&lt;/b&gt; <mark>red tower</mark>."
    )


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )


def visible_lines(dom: str) -> list[int]:
    """The lines of the items the page shows (each item's source waits in a script)."""
    shown = re.sub(r"<script\b.*?</script>", "", dom, flags=re.DOTALL)
    articles = re.findall(r'<article class="item"[^>]*>', shown)
    return [
        int(re.search(r'data-line="(\d+)"', a).group(1))  # type: ignore[union-attr]
        for a in articles
        if "hidden" not in a
    ]


@needs_chromium
def test_page_script_runs_and_filters_in_chromium(page: Path) -> None:
    dom = chromium("--dump-dom", page.as_uri()).stdout
    assert 'data-ready="true"' in dom
    assert "showing 13 of 13 items" in dom
    assert visible_lines(dom) == list(range(1, 14))

    errors = chromium("--dump-dom", page.as_uri() + "#status=error").stdout
    assert "showing 1 of 13 items" in errors
    assert visible_lines(errors) == [13]

    low_first = chromium("--dump-dom", page.as_uri() + "#sort=score-asc&max=0.5").stdout
    lines = visible_lines(low_first)
    on_page = re.sub(r"<script\b.*?</script>", "", low_first, flags=re.DOTALL)
    scores = [float(s) for s in re.findall(r'data-scores="([\d.]+)"[^>]*>', on_page)]
    assert lines and scores == sorted(scores)
    assert f"showing {len(lines)} of 13 items" in low_first


RENDERED = "rendered-text"
_PROBE = (
    "<script>window.addEventListener('load', () => setTimeout(() => {"
    "const p = document.createElement('pre'); p.id = '" + RENDERED + "';"
    "p.textContent = document.body.innerText; document.documentElement.appendChild(p);}, 0));"
    "</script>"
)


def rendered_text(page: Path, fragment: str = "") -> str:
    """The page's text as headless Chromium lays it out once its script has run: what a
    reader sees (`innerText`: no hidden element, no markup), whitespace collapsed."""
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / page.name
        probe.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
        dom = chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri() + fragment)
    found = re.search(f'<pre id="{RENDERED}">(.*?)</pre>', dom.stdout, re.DOTALL)
    assert found is not None, dom.stdout[-2000:]
    return " ".join(unescape(found.group(1)).split())


def _shown(text: str) -> str:
    return " ".join(str(text).split())


@needs_chromium
def test_the_rendered_page_shows_each_item_once_in_line_order(run: Path, page: Path) -> None:
    """What the page shows, read off Chromium's layout rather than a screenshot (the look may
    change; the content may not): the mean, every item's id and ground truth in line order
    and each scorer's reason; filtered to errors, only the failed row is left on screen."""
    lines = [json.loads(line) for line in run.read_text().splitlines()]
    scores = [recall(r)["score"] for r in lines if recall(r)["score"] is not None]
    text = rendered_text(page)
    assert f"{sum(scores) / len(scores):.4f}" in text
    items = text[text.index("showing 13 of 13 items") :]
    at = 0
    for record in lines:
        name = record["id"] or f"line {record['line']}"
        found = items.find(name, at)
        assert found >= 0, f"{name} not shown after position {at}"
        at = found + len(name)
        if record["ground_truth"] is not None:
            assert _shown(record["ground_truth"]) in items, name
        result = recall(record)
        said = result["error"] if result["status"] == "error" else result["reason"]
        assert _shown(said) in items, name

    errors = rendered_text(page, "#status=error")
    only = errors[errors.index("showing 1 of 13 items") :]
    assert "broken" in only and _shown(recall(lines[-1])["error"]) in only
    assert not [r["id"] for r in lines[:-1] if r["id"] in only]


def test_results_without_recorded_context_still_report(tmp_path: Path, run: Path) -> None:
    older = tmp_path / "older.jsonl"
    lines = [json.loads(line) for line in run.read_text().splitlines()]
    for record in lines:
        for key in ("input", "ground_truth", "context"):
            del record[key]
    older.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "older.html"
    result = CliRunner().invoke(main, ["report", str(older), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "context not recorded in this result file" in html
    assert "<mark>" not in html
