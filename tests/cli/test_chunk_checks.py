"""The summary says how many chunk checks the progress counted: the number its caption refers
to, summed over the run's windows."""

from __future__ import annotations

import io
import json
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from offline_recall.cli import main
from offline_recall.cli.progress import RunBar
from offline_recall.scorer.registry import RECALL, scorer_kind

from ..conftest import EXAMPLE

PRECISION = "context-precision-scorer"


def test_the_bar_counts_each_scorers_verdicts_over_every_window() -> None:
    bar = RunBar(Console(file=io.StringIO(), force_terminal=False), 40, every=0)
    judged = scorer_kind(RECALL).judged
    for total in (30, 12):  # two windows, each stage counted from 0
        bar.window(16)
        bar.stage(RECALL, "sentences extracted", 5, 5)
        for done in (0, total // 2, total):
            bar.stage(RECALL, judged, done, total)
    bar.stage(PRECISION, scorer_kind(PRECISION).judged, 7, 7)
    assert bar.checks() == {RECALL: 42, PRECISION: 7}


def _score(data: Path, out: Path, *args: str) -> str:
    command = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *args]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # the caption, unwrapped


def test_the_summary_prints_the_chunk_checks_the_progress_counted(tmp_path: Path) -> None:
    said = _score(EXAMPLE, tmp_path / "out.jsonl")
    assert "recall: chunk checks 24/24" in said
    assert (
        "a claim is supported when one chunk supports it; the progress counted 24 chunk checks "
        "(each claim against one chunk)"
    ) in said


def test_the_count_sums_the_windows(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [
        {"groundTruth": f"Item {i} is red. It weighs {i} grams.", "context": ["a", "b", "c"]}
        for i in range(40)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    said = _score(data, tmp_path / "out.jsonl")
    assert "the progress counted 240 chunk checks" in said  # 2 claims x 3 chunks x 40 rows


def test_a_resumed_run_with_no_row_left_counts_none_and_says_how_a_claim_is_decided(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.jsonl"
    _score(EXAMPLE, out)
    said = _score(EXAMPLE, out)
    assert "a claim is supported when one chunk supports it" in said
    assert "the progress counted" not in said
