"""The report's reading aids: labelled badges, the prompt versions explained, given zeros set
apart from the histogram, the most-missed claims, recall against precision, search and CSV."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.cli import main
from offline_recall.report.insights import most_missed

from ..conftest import EXAMPLE, RECALL

PRECISION = "context-precision-scorer"
CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(
    shutil.which(str(CHROMIUM)) is None,
    reason="headless Chromium not installed (/usr/bin/chromium; apt-get install chromium)",
)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with a row without ground truth and one without context, scored by both
    scorers on the fake engine, and its report."""
    folder = tmp_path_factory.mktemp("features")
    data = folder / "data.jsonl"
    extra = [
        {"id": "no-truth", "input": "Capital of France?", "context": ["Paris is in France."]},
        {"id": "no-context", "groundTruth": "Shakespeare wrote Hamlet.", "context": []},
    ]
    data.write_text(EXAMPLE.read_text() + "".join(json.dumps(r) + "\n" for r in extra))
    out = folder / "results.jsonl"
    scored = CliRunner().invoke(
        main,
        ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache",
         "--scorer", f"{RECALL},{PRECISION}"],
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    page = folder / "report.html"
    written = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert written.exit_code == 0, written.output
    return page


def test_each_badge_names_its_scorer(both: Path) -> None:
    page = both.read_text()
    head = page[page.index('id="line-1"') :].split("</div>", 1)[0]
    assert '<span class="score-label">recall</span>' in head
    assert '<span class="score-label">precision</span>' in head
    assert ">recall: ok</span>" in head and ">precision: ok</span>" in head


def test_the_header_says_which_prompt_version_each_scorer_used(both: Path) -> None:
    page = both.read_text()
    assert re.search(r"prompt versions recall <b>v\d+</b>, precision <b>v\d+</b>", page)
    assert "versioned prompt files each scorer asked the model with" in page


def test_given_zeros_are_set_apart_from_the_histogram(both: Path) -> None:
    page = both.read_text()
    recall_panel = page[page.index('id="summary-context-recall-scorer"') :].split("</section>")[0]
    bins = re.findall(
        r'<div class="bin" [^>]*><div class="bar" [^>]*><span>(\d+)</span>', recall_panel
    )
    apart = re.findall(r'<div class="bin apart[^"]*" title="1 items with ([a-z ]+):', recall_panel)
    assert len(bins) == 10 and sum(int(n) for n in bins) == 12
    assert apart == ["no ground truth", "no context"]
    assert "12 measured scores in 10 bins" in recall_panel


def test_the_report_lists_the_most_missed_claims(both: Path) -> None:
    page = both.read_text()
    assert 'id="missed-context-recall-scorer"' in page
    assert 'id="missed-context-precision-scorer"' not in page  # chunks are not claims
    missed = page[page.index('id="missed-context-recall-scorer"') :].split("</section>")[0]
    assert '<a href="#line-' in missed


def record(line: int, claims: list[tuple[str, bool, float]]) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=0.0,
        reason="",
        status=Status.OK,
        verdicts=tuple(
            ClaimVerdict(claim=c, supported=s, probability=p, chunk_index=None)
            for c, s, p in claims
        ),
        model_fingerprint="m@1",
        prompt_version="v1",
        judge_profile="p",
        library_version="0.2.0",
    )
    return ItemRecord(line=line, id=f"q{line}", context=["x"], results={RECALL: result})


def test_most_missed_counts_items_then_puts_the_least_likely_first() -> None:
    records = [
        record(1, [("Paris is in France.", False, 0.4), ("Lyon is big.", False, 0.1)]),
        record(2, [("paris is in  France.", False, 0.2), ("Lyon is big.", True, 0.9)]),
        record(3, [("Nice is warm.", False, 0.3)]),
    ]
    missed = most_missed(records, RECALL)
    assert [(m.text, m.items, m.lines) for m in missed] == [
        ("Paris is in France.", 2, [1, 2]),
        ("Lyon is big.", 1, [1]),
        ("Nice is warm.", 1, [3]),
    ]
    assert missed[0].mean_probability == pytest.approx(0.3)
    assert missed[0].ids == ["q1 (line 1)", "q2 (line 2)"]


def test_recall_against_precision_is_plotted_when_both_ran(both: Path, tmp_path: Path) -> None:
    page = both.read_text()
    plot = page[page.index('id="scatter"') :].split("</section>")[0]
    assert "<svg" in plot and "Recall against precision" in plot
    assert "12 items scored by both" in plot
    assert sum(int(n) for n in re.findall(r"<title>(\d+) items?", plot)) == 12
    alone = tmp_path / "r.jsonl"
    CliRunner().invoke(main, ["score", str(EXAMPLE), "--backend", "fake", "--out", str(alone)])
    CliRunner().invoke(main, ["report", str(alone), "--out", str(tmp_path / "r.html")])
    assert 'id="scatter"' not in (tmp_path / "r.html").read_text()


def chromium_dom(url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
             f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout  # fmt: skip


@needs_chromium
def test_search_by_id_or_text_and_export_the_shown_rows_as_csv(both: Path, tmp_path: Path) -> None:
    by_id = chromium_dom(both.as_uri() + "#q=eiffel")
    assert "showing 3 of 14 items" in by_id
    by_text = chromium_dom(both.as_uri() + "#q=" + "Guido%20van")
    assert "showing 2 of 14 items" in by_text
    # The export as the button builds it, read back through the page itself.
    probe = tmp_path / "probe.html"
    probe.write_text(
        both.read_text().replace(
            "</body>",
            '<script>document.body.setAttribute("data-csv", window.offlineRecallCsv());'
            "</script></body>",
        )
    )
    dom = chromium_dom(probe.as_uri() + "#q=eiffel")
    found = re.search(r'data-csv="([^"]*)"', dom)
    assert found is not None, dom[-2000:]
    rows = list(csv.reader(io.StringIO(html.unescape(found.group(1)))))
    assert rows[0] == [
        "line", "id", f"{RECALL} score", f"{RECALL} status",
        f"{PRECISION} score", f"{PRECISION} status",
    ]  # fmt: skip
    assert [r[1] for r in rows[1:]] == ["eiffel-full", "eiffel-part", "eiffel-none"]
    assert all(r[3] == "ok" and float(r[2]) >= 0 for r in rows[1:])
