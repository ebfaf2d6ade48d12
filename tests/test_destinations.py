"""Outputs never replace an input, each other, a device or a FIFO; refused in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main

ROW = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


def _data(folder: Path) -> Path:
    path = folder / "data.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    return path


def _score(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["score", *args, "--backend", "fake"])
    return result.exit_code, result.output


def _unchanged(path: Path, before: bytes) -> None:
    assert path.is_file()
    assert path.read_bytes() == before


def test_out_onto_a_fifo_is_refused_and_left_alone(tmp_path: Path) -> None:
    data = _data(tmp_path)
    fifo = tmp_path / "null"
    os.mkfifo(fifo)
    code, output = _score(str(data), "--out", str(fifo))
    assert code == 1
    assert "is a FIFO; give the path of a regular file" in output
    assert not Path(str(fifo) + ".manifest.json").exists()
    assert not Path(str(fifo) + ".run.sqlite").exists()
    assert fifo.is_fifo()


def test_out_onto_a_device_is_refused(tmp_path: Path) -> None:
    code, output = _score(str(_data(tmp_path)), "--out", "/dev/null")
    assert code == 1
    assert "/dev/null is a device" in output
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("restart", [False, True])
def test_store_equal_to_the_input_is_refused(tmp_path: Path, restart: bool) -> None:
    data = _data(tmp_path)
    before = data.read_bytes()
    extra = ["--restart"] if restart else []
    code, output = _score(
        str(data), "--out", str(tmp_path / "r.jsonl"), "--store", str(data), *extra
    )
    assert code == 1
    assert "--store" in output and "is the input" in output
    _unchanged(data, before)
    assert not (tmp_path / "r.jsonl").exists()


def test_store_equal_to_out_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, output = _score(str(_data(tmp_path)), "--out", str(out), "--store", str(out))
    assert code == 1
    assert "is also --out" in output
    assert list(tmp_path.iterdir()) == [tmp_path / "data.jsonl"]


def test_out_equal_to_the_input_is_refused(tmp_path: Path) -> None:
    data = _data(tmp_path)
    before = data.read_bytes()
    code, output = _score(str(data), "--out", str(tmp_path / "." / "data.jsonl"))
    assert code == 1
    assert "is the input" in output
    _unchanged(data, before)


def test_a_store_that_is_not_a_run_store_is_never_opened_or_removed(tmp_path: Path) -> None:
    other = tmp_path / "notes.sqlite"
    other.write_bytes(b"my own notes, not a database")
    for extra in ([], ["--restart"]):
        code, output = _score(
            str(_data(tmp_path)), "--out", str(tmp_path / "r.jsonl"), "--store", str(other), *extra
        )
        assert code == 1
        assert "is not a run store of offline-recall" in output
        assert "Traceback" not in output
        assert other.read_bytes() == b"my own notes, not a database"


def test_out_under_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, output = _score(str(_data(tmp_path)), "--out", str(blocker / "r.jsonl"))
    assert code == 1
    assert "is a file, not a folder" in output
    assert output.count("\n") == 1


def _scored(tmp_path: Path) -> Path:
    out = tmp_path / "r.jsonl"
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 0, output
    return out


def test_report_onto_its_results_is_refused(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    before = out.read_bytes()
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(out)])
    assert result.exit_code == 1
    assert "is the input RESULTS" in result.output
    _unchanged(out, before)


def test_compare_html_onto_a_run_is_refused(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    before = out.read_bytes()
    result = CliRunner().invoke(main, ["compare", str(out), str(out), "--html", str(out)])
    assert result.exit_code == 1
    assert "is the input" in result.output
    _unchanged(out, before)


def test_a_report_is_written_whole_and_a_stale_partial_file_removed(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    stale = tmp_path / ".report.html.partial-x1"
    stale.write_text("half a page")
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert result.exit_code == 0, result.output
    assert page.read_text().rstrip().endswith("</html>")
    assert not stale.exists()
