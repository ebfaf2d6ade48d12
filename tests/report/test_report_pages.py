"""The report of a long run, and of hostile or non-Latin text: built in two passes that hold no
records, items shown a page at a time, long words wrapped, text isolated for bidi, CSV cells
never formulas, the output shown beside the question, a heading per scorer, and Hangul drawn."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import subprocess
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.cli import main
from offline_recall.report import stats
from offline_recall.report.html import report_chunks
from offline_recall.report.views import readable_list, report_view
from offline_recall.runs.results import iter_results

from ..conftest import EXAMPLE, RECALL

PRECISION = "context-precision-scorer"
FAITHFULNESS = "faithfulness-scorer"
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="headless Chromium not installed (/usr/bin/chromium; apt-get install chromium)",
)


def chromium(url: str, *args: str, env: dict[str, str] | None = None) -> str:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args, url],
            capture_output=True, text=True, timeout=120, check=True,
            env=None if env is None else {**os.environ, **env},
        ).stdout  # fmt: skip


def with_probe(page: Path, script: str) -> Path:
    """A copy of `page` that runs `script` once the page's own script has run."""
    probe = page.with_name("probe-" + page.name)
    probe.write_text(page.read_text().replace("</body>", f"<script>{script}</script></body>"))
    return probe


def probed(
    page: Path, script: str, fragment: str = "", *args: str, env: dict[str, str] | None = None
) -> Any:
    """What `script` (an expression) gives in the rendered page, read back as JSON."""
    expression = f"document.body.setAttribute('data-probe', JSON.stringify({script}));"
    url = with_probe(page, expression).as_uri() + fragment
    dom = chromium(url, "--dump-dom", *args, env=env)
    found = re.search(r'<body[^>]*data-probe="([^"]*)"', dom)
    assert found is not None, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def shown_lines(dom: str) -> list[int]:
    """The lines of the items the page shows (not the inert sources of the others)."""
    shown = re.sub(r"<script\b.*?</script>", "", dom, flags=re.DOTALL)
    return [int(n) for n in re.findall(r'<article class="item" id="line-(\d+)"', shown)]


def report(records: list[ItemRecord], folder: Path, name: str = "r") -> Path:
    results = folder / f"{name}.jsonl"
    results.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    page = folder / f"{name}.html"
    written = CliRunner().invoke(main, ["report", str(results), "--out", str(page)])
    assert written.exit_code == 0, written.output
    return page


def recall_record(
    line: int, id_: str, claim: str = "Paris is in France.", **row: object
) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=0.0,
        reason="The score is 0 because the claim is not supported.",
        status=Status.OK,
        verdicts=(ClaimVerdict(claim=claim, supported=False, probability=0.2, chunk_index=None),),
        model_fingerprint="m@1",
        prompt_version="v1",
        judge_profile="p",
        library_version="0.2.0",
    )
    given: dict[str, object] = {"context": ["Lyon is in France."]} | row
    return ItemRecord(line=line, id=id_, results={RECALL: result}, **given)


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    """The example scored by recall and precision on the fake engine, as JSON records."""
    folder = tmp_path_factory.mktemp("pages")
    out = folder / "results.jsonl"
    done = CliRunner().invoke(
        main,
        ["score", str(EXAMPLE), "--backend", "fake", "--no-cache", "--out", str(out),
         "--scorer", f"{RECALL},{PRECISION}"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def long_run(scored: list[dict[str, object]], rows: int, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            record = dict(scored[i % len(scored)], line=i + 1, id=f"row-{i + 1}")
            f.write(json.dumps(record) + "\n")
    return path


# A: a long run


def test_both_passes_hold_no_records(scored: list[dict[str, object]], tmp_path: Path) -> None:
    """The summary and the items are each read in one pass that lets every record go before
    the next is read: memory does not grow with the run."""
    results = long_run(scored, 300, tmp_path / "long.jsonl")
    alive, most = [0], [0]
    refs: list[weakref.ref[ItemRecord]] = []

    def gone(_: object) -> None:
        alive[0] -= 1

    def watched() -> Iterator[ItemRecord]:
        for record in iter_results(results):
            most[0] = max(most[0], alive[0])
            alive[0] += 1
            refs.append(weakref.ref(record, gone))
            yield record
            del record

    view = report_view(watched(), "long.jsonl")
    assert view.count == 300 and most[0] <= 2
    most[0] = 0
    size = sum(len(chunk) for chunk in report_chunks(view, watched()))
    assert most[0] <= 2 and size > 300 * 1000
    assert view.scorers[0].summary.items == 300


def test_the_interval_does_not_depend_on_the_resampling_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values = [(i * 7 % 11) / 10 for i in range(500)]
    whole = stats.bootstrap_mean(values)
    monkeypatch.setattr(stats, "BATCH_VALUES", 1_000)  # two resamples at a time
    assert stats.bootstrap_mean(values) == whole


@needs_chromium
def test_items_are_shown_a_page_at_a_time(scored: list[dict[str, object]], tmp_path: Path) -> None:
    results = long_run(scored, 250, tmp_path / "long.jsonl")
    page = tmp_path / "long.html"
    assert CliRunner().invoke(main, ["report", str(results), "--out", str(page)]).exit_code == 0
    first = chromium(page.as_uri(), "--dump-dom")
    assert "showing 250 of 250 items" in first
    assert shown_lines(first) == list(range(1, 101))
    assert "items 1\u2013100, page 1 of 3" in first
    last = chromium(page.as_uri() + "#page=3", "--dump-dom")
    assert shown_lines(last) == list(range(201, 251))
    # a link to one item shows its page
    linked = chromium(page.as_uri() + "#line-180", "--dump-dom")
    assert 180 in shown_lines(linked) and "page 2 of 3" in linked
    # filters and sorting reach every page, not only the one shown
    low = chromium(page.as_uri() + "#sort=score-asc&status=ok", "--dump-dom")
    on_page = re.sub(r"<script\b.*?</script>", "", low, flags=re.DOTALL)
    scores = [float(s.split()[0]) for s in re.findall(r'data-scores="([^"]*)"', on_page)]
    assert len(scores) == 100 and scores == sorted(scores) and scores[0] == 0.0


# B: hostile text


@needs_chromium
def test_a_very_long_word_wraps_inside_its_card(tmp_path: Path) -> None:
    word = "x" * 111_000
    page = report(
        [recall_record(1, word, claim=word, input=word, ground_truth=word, context=[word])],
        tmp_path,
    )
    widths = probed(
        page,
        "(() => { const a = document.querySelector('article.item');"
        " return [a.scrollWidth, a.clientWidth, document.documentElement.scrollWidth,"
        " window.innerWidth]; })()",
        "",
    )
    scroll, client, page_width, window = widths
    assert scroll <= client + 1, widths
    assert page_width <= window, widths


# Where each character of an element's text is laid out, left to right or not.
_LTR = (
    "(sel) => { const el = document.querySelector(sel); const t = el.firstChild;"
    " const xs = []; for (let i = 0; i < t.length; i++) { const r = document.createRange();"
    " r.setStart(t, i); r.setEnd(t, i + 1); xs.push(r.getBoundingClientRect().left); }"
    " return xs.every((x, i) => i === 0 || x > xs[i - 1]); }"
)


@needs_chromium
def test_a_right_to_left_override_does_not_reverse_the_rest_of_a_line(tmp_path: Path) -> None:
    override = "evil\u202eid"
    records = [recall_record(1, override)]
    broken = {"line": 2, "id": override, "results": {RECALL: {
        **records[0].results[RECALL].model_dump(mode="json"),
        "status": "error", "score": None, "verdicts": [], "error": "bad row here",
    }}}  # fmt: skip
    results = tmp_path / "r.jsonl"
    results.write_text(records[0].model_dump_json() + "\n" + json.dumps(broken) + "\n")
    page = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", str(results), "--out", str(page)]).exit_code == 0
    found = probed(page, f"[({_LTR})('#line-1 .where'), ({_LTR})('.failed-list code')]")
    assert found == [True, True]


@needs_chromium
def test_the_csv_export_quotes_cells_a_spreadsheet_would_run(tmp_path: Path) -> None:
    ids = ['=HYPERLINK("http://x.test/","click")', "+1", "-2", "@SUM(A1)", "\tx", "plain"]
    page = report([recall_record(i + 1, v) for i, v in enumerate(ids)], tmp_path)
    rows = list(csv.reader(io.StringIO(probed(page, "window.offlineRecallCsv()"))))
    assert [r[1] for r in rows[1:]] == ["'" + v for v in ids[:-1]] + ["plain"]


# C: what each item shows


def test_records_keep_the_output_and_the_report_shows_it(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        json.dumps({
            "id": "q1", "input": "Where is the tower?", "output": "The tower is in Paris.",
            "groundTruth": "The tower is in Paris.", "context": ["The tower stands in Paris."],
        }) + "\n"
    )  # fmt: skip
    out = tmp_path / "r.jsonl"
    done = CliRunner().invoke(
        main,
        ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out),
         "--scorer", f"{RECALL},{FAITHFULNESS}"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    record = json.loads(out.read_text())
    assert record["output"] == "The tower is in Paris."
    parquet = tmp_path / "r.parquet"
    done = CliRunner().invoke(
        main,
        ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(parquet),
         "--scorer", f"{RECALL},{FAITHFULNESS}"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert [r.output for r in iter_results(parquet)] == ["The tower is in Paris."]
    page = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", str(out), "--out", str(page)]).exit_code == 0
    item = page.read_text().split('<article class="item"', 1)[1]
    texts = re.findall(r"<dt>([^<]+)</dt><dd>([^<]*)</dd>", item)
    assert texts == [
        ("Question", "Where is the tower?"),
        ("Output", "The tower is in Paris."),
        ("Ground truth", "The tower is in Paris."),
    ]
    assert "Context: 1 chunk" in item


def test_each_scorer_s_verdicts_are_under_its_own_heading(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(EXAMPLE.read_text().splitlines()[0] + "\n")
    out = tmp_path / "r.jsonl"
    done = CliRunner().invoke(
        main,
        ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out),
         "--scorer", f"{RECALL},{PRECISION}"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    page = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", str(out), "--out", str(page)]).exit_code == 0
    item = page.read_text().split('<article class="item"', 1)[1].split("</article>")[0]
    parts = re.findall(r'<h3 class="result-title">([^<]+)</h3>|<th>(Claim|Chunk)</th>', item)
    assert parts == [
        ("Context recall", ""),
        ("", "Claim"),
        ("Context precision", ""),
        ("", "Chunk"),
    ]


def test_the_title_names_the_scorers_as_a_sentence_does() -> None:
    assert readable_list(["Context recall"]) == "Context recall"
    assert readable_list(["Context recall", "Context precision", "Faithfulness"]) == (
        "Context recall, context precision and faithfulness"
    )
    records = [recall_record(1, "a")]
    assert report_view(records, "r.jsonl").title == "Context recall report"


def test_the_font_stack_names_korean_faces_before_the_generic_fallback(tmp_path: Path) -> None:
    page = report([recall_record(1, "a")], tmp_path).read_text()
    stack = re.search(r"body \{[^}]*font: 15px/1\.5 ([^;]+);", page, re.DOTALL)
    assert stack is not None
    faces = [f.strip().strip('"') for f in stack.group(1).split(",")]
    korean = ["Noto Sans CJK KR", "Noto Sans KR", "Nanum Gothic", "Apple SD Gothic Neo",
              "Malgun Gothic"]  # fmt: skip
    assert all(k in faces for k in korean) and faces[-1] == "sans-serif"


# Hangul drawn, not the missing-glyph box


KOREAN = "연차 휴가는 입사 후 일 년이 지나면 십오 일이 주어집니다"
NOTO_CJK = Path("/usr/share/fonts/opentype/noto")
_GLYPHS = (
    "(() => { const out = []; const add = (el) => { const t = el.firstChild;"
    " for (let i = 0, n = 1; i < t.length; i += n) { n = t.data.codePointAt(i) > 0xffff ? 2 : 1;"
    " if (t.data[i] === ' ') continue;"
    " const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + n);"
    " const b = r.getBoundingClientRect(); out.push([t.data.slice(i, i + n), b.left, b.top,"
    " b.width, b.height]); } };"
    " const dd = document.querySelector('#line-1 dd'); add(dd);"
    " const missing = document.createElement('p'); missing.textContent = '\\u{F0000}\\u{F0001}';"
    " dd.parentNode.after(missing); add(missing); return out; })()"
)
"""Each character of the Korean row's question, then two private-use characters no font has
(the missing-glyph box, for comparison), and where each is drawn."""


def drawn(page: Path, env: dict[str, str] | None = None) -> list[bool]:
    """For each character `_GLYPHS` finds, whether a glyph is drawn: ink inside the middle
    of its box. The missing-glyph box is an outline, empty in the middle."""
    from PIL import Image

    # The same window and scale for where the characters are and for the picture of them.
    window, scale = ["--window-size=1280,1400", "--force-device-scale-factor=2"], 2
    boxes = probed(page, _GLYPHS, "", *window, env=env)
    probe = with_probe(page, _GLYPHS.replace("return out;", "return 0;"))
    shot = page.with_name("shot.png")
    chromium(probe.as_uri(), *window, f"--screenshot={shot}", env=env)
    image = Image.open(shot).convert("L")
    found = []
    for _, left, top, width, height in boxes:
        assert top + height < 1400, "the row must be on the screenshot"
        ink = [
            cast(int, image.getpixel((x, y))) < 160
            for x in range(round(scale * (left + width * 0.3)), round(scale * (left + width * 0.7)))
            for y in range(round(scale * (top + height * 0.3)), round(scale * (top + height * 0.7)))
        ]
        found.append(any(ink))
    return found


def _korean_page(folder: Path) -> Path:
    data = folder / "ko.jsonl"
    data.write_text(
        json.dumps({"id": "hr-1", "input": KOREAN, "groundTruth": "연차는 십오 일입니다.",
                    "context": ["근로기준법에 따라 연차 휴가는 십오 일이다."]}, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )  # fmt: skip
    out = folder / "ko-results.jsonl"
    done = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert done.exit_code == 0, done.output
    page = folder / "ko.html"
    assert CliRunner().invoke(main, ["report", str(out), "--out", str(page)]).exit_code == 0
    return page


def _need_cjk_fonts() -> None:
    if NOTO_CJK.is_dir() and any(NOTO_CJK.glob("NotoSansCJK*")):
        return
    reason = f"fonts-noto-cjk not installed ({NOTO_CJK}; apt-get install fonts-noto-cjk)"
    if os.environ.get("CI", "").lower() in {"true", "1", "yes"}:
        pytest.fail(f"{reason}: CI installs it")
    pytest.skip(reason)


@needs_chromium
def test_korean_text_is_drawn_in_glyphs_not_boxes(tmp_path: Path) -> None:
    _need_cjk_fonts()
    found = drawn(_korean_page(tmp_path))
    hangul, missing = found[:-2], found[-2:]
    assert len(hangul) == len(KOREAN.replace(" ", ""))
    assert all(hangul), found
    assert not any(missing), "the check must see the missing-glyph box as no glyph"


@needs_chromium
def test_without_a_korean_font_the_check_sees_boxes(tmp_path: Path) -> None:
    """The same page with only DejaVu visible to Chromium: every Hangul character is the
    missing-glyph box, and the check above says so."""
    dejavu = Path("/usr/share/fonts/truetype/dejavu")
    if not dejavu.is_dir():
        pytest.skip(f"{dejavu} not installed (fonts-dejavu-core)")
    config = tmp_path / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>{dejavu}</dir><cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>"
    )
    found = drawn(_korean_page(tmp_path), env={"FONTCONFIG_FILE": str(config)})
    assert not any(found), found
