"""Resumable runs: the run store, its identity, the manifest, and output written from the store."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.runs.store import RunStore, default_store_path, manifest_path

from ..conftest import EXAMPLE, RECALL, recall


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
    spec = manifest["spec"]
    assert manifest["input"]["sha256"] and spec["engine"]["name"] == "fake"
    assert spec["model_fingerprint"] == "fake@0000000000000000"
    assert spec["library_version"] and spec["scorers"][0]["id"] == RECALL
    setup = spec["scorers"][0]["setup"]
    assert setup["prompt_version"] == "v5" and setup["scale"] == 1.0
    assert setup["judge_profile"]["threshold"] == 0.5  # no profile for the fake model
    assert spec["scorers"][0]["profile_origin"] == "manifest threshold"
    assert len(manifest["prompt_files_sha256"][RECALL]) == 64


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
    first = recall(json.loads(out.read_text().splitlines()[0]))["score"]
    code, output = run(out, "--scale", "10")
    assert code == 1
    last = output.strip().splitlines()[-1]
    assert f"holds another run (different scorers.{RECALL}.scale 1.0 vs 10.0)" in last
    assert "--restart" in last
    code, output = run(out, "--scale", "10", "--restart")
    assert code == 0, output
    assert recall(json.loads(out.read_text().splitlines()[0]))["score"] == first * 10


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


LABELLED = [
    {"claim": "The Eiffel Tower is in Paris.", "context": "The tower is in Paris.", "label": 1},
    {"claim": "It opened in 1889.", "context": "It opened in 1889.", "label": 1},
    {"claim": "It is green.", "context": "The tower is in Paris.", "label": 0},
    {"claim": "Rome is in Spain.", "context": "Rome is in Italy.", "label": 0},
]


def test_a_new_judge_profile_mid_run_is_refused_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows decided by one rule and the rest by another would be one run in name only."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "r.jsonl"
    assert run(out)[0] == 0
    with sqlite3.connect(default_store_path(out)) as db:
        db.execute("DELETE FROM results WHERE line > 5")  # as if interrupted
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in LABELLED))
    calibrated = CliRunner().invoke(
        main, ["calibrate", "--data", str(labelled), "--backend", "fake", "--folds", "2", "--force"]
    )
    assert calibrated.exit_code == 0, calibrated.output
    code, output = run(out)
    assert code == 1
    assert f"scorers.{RECALL}.judge_profile" in output and "--restart" in output
    code, output = run(out, "--restart")
    assert code == 0, output
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["spec"]["scorers"][0]["profile_origin"] == "user-calibrated"


def test_a_store_of_another_schema_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert run(out)[0] == 0
    with sqlite3.connect(default_store_path(out)) as db:
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    code, output = run(out)
    assert code == 1 and "another version of offline-recall" in output


@pytest.mark.parametrize("part", ["", "-wal", "-shm", "-journal"])
def test_a_store_file_with_another_name_is_refused_and_left_alone(
    tmp_path: Path, part: str
) -> None:
    """SQLite writes its database and side files in place: a hard link planted at one of them
    would have another file overwritten."""
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    out = tmp_path / "r.jsonl"
    planted = Path(f"{default_store_path(out)}{part}")
    os.link(victim, planted)
    code, output = run(out)
    assert code == 1
    what = f"run store's {part} file" if part else "run store"
    assert f"Error: the {what} {planted} is a file with other names (hard links)" in output
    assert victim.read_text() == "someone else's file\n"
    assert not out.exists()
