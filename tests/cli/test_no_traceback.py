"""Faults a user can cause end in one line saying what to do, never a traceback: a full disk,
a broken manifest beside results, an unusable cache, a store on a read-only mount, a FIFO."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.runs import store as run_store
from offline_recall.runs.lock import StoreLock

ROWS = 40


def _data(folder: Path, rows: int = ROWS) -> Path:
    path = folder / "data.jsonl"
    lines = [
        {"id": f"r{i}", "groundTruth": f"Item {i} is red. " * 200, "context": [f"Item {i} is red."]}
        for i in range(rows)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _one_line_error(result: Result, *said: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    assert all(s in errors[0] for s in said), errors[0]


def _scored(folder: Path, name: str = "r.jsonl") -> Path:
    out = folder / name
    result = _invoke("score", str(_data(folder, 3)), "--backend", "fake", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_a_full_disk_at_commit_is_one_line_and_the_store_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, out = _data(tmp_path), tmp_path / "r.jsonl"
    command = ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache"]
    with monkeypatch.context() as full:  # a store that cannot grow past 40 pages: a full disk
        full.setattr(run_store, "_SCHEMA", run_store._SCHEMA + "PRAGMA max_page_count = 40;")
        filled = _invoke(*command)
    _one_line_error(filled, "cannot write the run store", "disk is full", "run the same command")
    store = Path(f"{out}.run.sqlite")
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        kept = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert 0 < kept < ROWS
    resumed = _invoke(*command)
    assert resumed.exit_code == 0, resumed.output
    assert f"resuming: {kept} of {ROWS} rows" in resumed.output
    assert len(out.read_text().splitlines()) == ROWS


def test_a_broken_manifest_beside_results_is_one_line_in_compare_and_verify(
    tmp_path: Path,
) -> None:
    a, b = _scored(tmp_path, "a.jsonl"), _scored(tmp_path, "b.jsonl")
    Path(f"{b}.manifest.json").write_text("{not json")
    _one_line_error(_invoke("compare", str(a), str(b)), "b.jsonl.manifest.json", "restore")
    _one_line_error(_invoke("verify", str(b)), "b.jsonl.manifest.json", "restore")
    Path(f"{b}.manifest.json").write_text(json.dumps({"spec": 1}))
    _one_line_error(_invoke("verify", str(b)), "not a run manifest")


def test_a_cache_folder_that_is_a_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(blocker))
    data, out = _data(tmp_path, 2), tmp_path / "r.jsonl"
    refused = _invoke("score", str(data), "--backend", "fake", "--out", str(out))
    _one_line_error(refused, "the claim cache", "OFFLINE_RECALL_CACHE", "--no-cache")
    assert not out.exists()
    _one_line_error(_invoke("cache", "info"), "the claim cache")
    _one_line_error(_invoke("cache", "clear"), "the claim cache")
    scored = _invoke("score", str(data), "--backend", "fake", "--out", str(out), "--no-cache")
    assert scored.exit_code == 0, scored.output


def test_a_cache_that_is_not_a_database_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "claims.sqlite").write_text("my notes, not a cache\n" * 100)
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(cache))
    refused = _invoke("score", str(_data(tmp_path, 2)), "--backend", "fake", "--out", "r.jsonl")
    _one_line_error(refused, "the claim cache", "not a database")


@pytest.mark.parametrize("named", ["store", "results"])
def test_verify_reads_a_store_without_locking_or_writing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    """A store on a read-only mount: no lock file can be made beside it, so verify makes
    none."""
    out = _scored(tmp_path)
    store = Path(f"{out}.run.sqlite")
    if named == "results":
        Path(f"{out}.manifest.json").unlink()  # the manifest is read from the store

    def read_only(self: StoreLock) -> None:
        raise OSError(30, "Read-only file system", str(self.path))

    monkeypatch.setattr(StoreLock, "acquire", read_only)
    before = store.read_bytes()
    result = _invoke("verify", str(store if named == "store" else out))
    assert result.exit_code == 0, result.output
    assert "3 identical, 0 differ" in result.output
    assert store.read_bytes() == before
    assert not Path(f"{store}.lock").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_verify_reads_a_store_in_a_read_only_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    out = _scored(run)
    for path in run.iterdir():
        path.chmod(0o444)
    run.chmod(0o555)
    try:
        result = _invoke("verify", f"{out}.run.sqlite")
    finally:
        run.chmod(0o755)
    assert result.exit_code == 0, result.output
    assert "3 identical, 0 differ" in result.output


def test_report_reads_a_fifo_once(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("wb") as f:
            f.write(out.read_bytes())

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    page = tmp_path / "report.html"
    cli = Path(sys.executable).with_name("offline-recall")
    done = subprocess.run(
        [str(cli), "report", str(fifo), "--out", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    feeder.join(timeout=5)
    assert done.returncode == 0, done.stderr
    assert "(3 items)" in done.stdout
    assert page.read_text().rstrip().endswith("</html>")
