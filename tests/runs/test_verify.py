"""`verify`: a recorded run re-scored row by row, byte for byte."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main

from ..conftest import EXAMPLE, RECALL, run_cli
from ..servers import Loopback, Reply


def scored(tmp_path: Path, data: Path = EXAMPLE, backend: str = "fake") -> Path:
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", backend, "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_an_untouched_run_verifies_identical(tmp_path: Path) -> None:
    out = scored(tmp_path)
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0, result.output
    assert "12 rows re-scored, 12 identical, 0 differ" in result.output


def test_a_sample_and_the_store_verify_too(tmp_path: Path) -> None:
    out = scored(tmp_path)
    sample = CliRunner().invoke(main, ["verify", str(out), "--sample", "3", "--seed", "7"])
    assert "3 rows re-scored, 3 identical" in sample.output
    store = CliRunner().invoke(main, ["verify", str(out) + ".run.sqlite"])
    assert "12 identical" in store.output


def test_a_tampered_result_is_reported(tmp_path: Path) -> None:
    out = scored(tmp_path)
    lines = out.read_text().splitlines()
    row = json.loads(lines[2])
    row["results"][RECALL]["score"] = 0.99
    lines[2] = json.dumps(row, ensure_ascii=False)
    out.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 1
    assert "11 identical, 1 differ" in result.output
    assert f"line 3: {RECALL}.score differ" in result.output
    assert result.output.strip().splitlines()[-1] == "Error: 1 of 12 rows differ from the run"


def test_verify_rescores_with_the_recorded_profile_after_a_recalibration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new profile for the model does not change what the recorded run is checked against."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    out = scored(tmp_path)
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text(
        "".join(
            json.dumps({"claim": c, "context": "The tower is in Paris.", "label": label}) + "\n"
            for c, label in [
                ("The tower is in Paris.", 1),
                ("Paris.", 1),
                ("Rome.", 0),
                ("Oslo.", 0),
            ]
        )
    )
    calibrated = CliRunner().invoke(
        main, ["calibrate", "--data", str(labelled), "--backend", "fake", "--folds", "2", "--force"]
    )
    assert calibrated.exit_code == 0, calibrated.output
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0, result.output
    assert "12 rows re-scored, 12 identical, 0 differ" in result.output


def test_a_changed_input_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(EXAMPLE.read_bytes())
    out = scored(tmp_path, data)
    data.write_bytes(EXAMPLE.read_bytes() + b"\n")
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 1
    assert "changed since the run" in result.output.strip().splitlines()[-1]


def test_a_file_without_a_manifest_is_refused(tmp_path: Path) -> None:
    out = scored(tmp_path)
    moved = tmp_path / "moved.jsonl"
    moved.write_bytes(out.read_bytes())
    result = CliRunner().invoke(main, ["verify", str(moved)])
    assert result.exit_code == 1
    assert "has no run manifest" in result.output


@pytest.mark.model
def test_the_embedded_model_rescores_byte_identically(tmp_path: Path) -> None:
    data = tmp_path / "two.jsonl"
    data.write_text("\n".join(EXAMPLE.read_text().splitlines()[:2]) + "\n")
    out = scored(tmp_path, data, backend="transformers")
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 rows re-scored, 2 identical, 0 differ" in result.output


def _score_in_a_process(data: Path, out: Path, hash_seed: int) -> None:
    """`score` as a user runs it, in a process of its own with its own string hashing."""
    run_cli("score", str(data), "--out", str(out), env={"PYTHONHASHSEED": str(hash_seed)})


@pytest.mark.model
def test_repeats_and_resumes_are_byte_identical_across_processes(tmp_path: Path) -> None:
    """Real runs in separate processes (each hashing strings its own way), one of them
    resumed after losing rows: the outputs are the same bytes."""
    data = tmp_path / "data.jsonl"
    data.write_bytes(EXAMPLE.read_bytes())
    first, second, resumed = (tmp_path / n / "r.jsonl" for n in ("first", "second", "resumed"))
    for out in (first, second, resumed):
        out.parent.mkdir()
    _score_in_a_process(data, first, hash_seed=1)
    _score_in_a_process(data, second, hash_seed=2)
    assert second.read_bytes() == first.read_bytes()

    store = resumed.with_name("r.jsonl.run.sqlite")
    store.write_bytes(first.with_name("r.jsonl.run.sqlite").read_bytes())
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM results WHERE line > 5")
    _score_in_a_process(data, resumed, hash_seed=3)
    assert resumed.read_bytes() == first.read_bytes()


def _recorder() -> Loopback:
    """A loopback server that records each request, answering 404."""
    return Loopback(lambda _: Reply(404))


def _pointed_at_a_server(out: Path, url: str, key_env: str) -> None:
    """Rewrite the manifest beside `out` as a crafted bundle would: a server engine at `url`
    whose key is read from `key_env`."""
    path = out.with_name(out.name + ".manifest.json")
    manifest = json.loads(path.read_text())
    manifest["spec"]["engine"] = {
        "name": "openai",
        "options": {"base_url": url, "api_key_env": key_env},
        "served": None,
    }
    path.write_text(json.dumps(manifest))
    Path(str(out) + ".run.sqlite").unlink()


def test_verify_never_follows_a_recorded_server_or_reads_a_recorded_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SECRET_TOKEN", "s3cret-value")
    out = scored(tmp_path)
    with _recorder() as recorder:
        _pointed_at_a_server(out, recorder.url, "MY_SECRET_TOKEN")
        refused = CliRunner().invoke(main, ["verify", str(out)])
        assert refused.exit_code == 1
        assert f"records as {recorder.url}" in refused.output
        assert "pass --base-url URL" in refused.output
        assert recorder.seen == []

        given = CliRunner().invoke(main, ["verify", str(out), "--base-url", recorder.url])
        assert given.exit_code == 1
        assert f"contacting only {recorder.url}" in given.output
        assert recorder.seen, "the server named on the command line is the one asked"
        for request in recorder.seen:
            assert "s3cret-value" not in json.dumps(request.headers)
            assert "authorization" not in {k.lower() for k in request.headers}


def test_a_long_record_is_shown_where_it_differs(tmp_path: Path) -> None:
    data = tmp_path / "long.jsonl"
    row = {"groundTruth": "Paris is in France.", "context": ["x" * 20_000, "Paris is in France."]}
    data.write_text(json.dumps(row) + "\n")
    out = scored(tmp_path, data)
    record = json.loads(out.read_text())
    record["results"][RECALL]["score"] = 0.25
    out.write_text(json.dumps(record, ensure_ascii=False) + "\n")
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 1
    recorded = next(line for line in result.output.splitlines() if "recorded:" in line)
    now = next(line for line in result.output.splitlines() if "now:" in line)
    assert len(recorded) < 4100 and len(now) < 4100
    assert '"score": 0.25' in recorded and '"score": 1.0' in now
