"""Resumable runs: the run store, its identity, the manifest, and output written from the store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.store import RunStore, default_store_path, manifest_path

from .conftest import EXAMPLE


def run(out: Path, *args: str, data: Path = EXAMPLE) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), *args]
    )
    return result.exit_code, result.output


def test_a_run_keeps_its_store_and_manifest_beside_the_output(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, output = run(out)
    assert code == 0, output
    store = default_store_path(out)
    assert store.name == "r.jsonl.run.sqlite" and store.is_file()
    with RunStore(store) as s:
        assert s.done() == set(range(1, 13))
        mode = s._db.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["input_sha256"] and manifest["backend"] == "fake"
    assert manifest["model_fingerprint"] == "fake@0000000000000000"
    assert manifest["library_version"] and "decoding" in manifest and "threshold" in manifest
    assert manifest["prompt_template_sha256"] is None  # the fake backend has no prompt set


def test_rerun_scores_only_missing_rows_and_writes_the_same_output(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert run(out)[0] == 0
    whole = out.read_bytes()
    with sqlite3.connect(default_store_path(out)) as db:
        db.execute("DELETE FROM results WHERE line > 5")
    out.unlink()
    code, output = run(out)
    assert code == 0, output
    assert out.read_bytes() == whole


def test_a_different_run_in_the_same_store_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert run(out)[0] == 0
    first = json.loads(out.read_text().splitlines()[0])["score"]
    code, output = run(out, "--scale", "10")
    assert code == 1
    last = output.strip().splitlines()[-1]
    assert "holds another run (different scale)" in last and "--restart" in last
    code, output = run(out, "--scale", "10", "--restart")
    assert code == 0, output
    assert json.loads(out.read_text().splitlines()[0])["score"] == first * 10


def test_store_option_places_the_store(tmp_path: Path) -> None:
    out, store = tmp_path / "r.jsonl", tmp_path / "elsewhere.sqlite"
    assert run(out, "--store", str(store))[0] == 0
    assert store.is_file() and not default_store_path(out).exists()


def test_parquet_output_is_written_from_the_store(tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    code, output = run(out)
    assert code == 0, output
    from offline_recall import read_results

    assert [r.line for r in read_results(out)] == list(range(1, 13))
    assert not list(tmp_path.glob(".r.parquet.*"))
