"""One version of the input per run: the rows scored are read from the bytes hashed, and a file
truncated, rewritten, appended to or replaced while `score` runs ends the run in one line,
reports nothing as done, and its store is not resumed."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.data.dataset import open_dataset
from offline_recall.data.version import InputChanged, check_unchanged
from offline_recall.runs import local

ROWS = 40
"""Rows of the input: more than two windows of the fake engine (16), each of 1 KB (more than
a read buffer in all), so the file changes while its rows are still being read."""


def _row(i: int) -> str:
    row = {
        "id": f"r{i}",
        "groundTruth": f"Fact {i} holds.",
        "context": [f"Fact {i} holds.", "x" * 1000],
    }
    return json.dumps(row) + "\n"


def _write(path: Path, rows: int = ROWS) -> Path:
    path.write_text("".join(_row(i) for i in range(rows)), encoding="utf-8")
    _aged(path)
    return path


def _aged(path: Path) -> None:
    """`path` last written a minute ago, as an input is written before it is scored: a write
    while it is scored then shows in its modification time, however coarse the clock."""
    written = path.stat().st_mtime_ns - 60 * 10**9
    os.utime(path, ns=(written, written))


def _truncate(path: Path) -> None:
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)


def _rewrite(path: Path) -> None:
    """The same size, other bytes, in place (as an editor or a generator writing anew)."""
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Fact 39 holds", b"Fact 39 fails"))


def _append(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(_row(i) for i in range(ROWS, ROWS + 10)))


def _changing(monkeypatch: pytest.MonkeyPatch, data: Path, change: Callable[[Path], None]) -> None:
    """`change` is made to `data` as the first window is scored."""
    scored = local.score_window
    calls: list[int] = []

    def score_window(*args: Any, **kwargs: Any) -> Any:
        if not calls:
            change(data)
        calls.append(1)
        return scored(*args, **kwargs)

    monkeypatch.setattr(local, "score_window", score_window)


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("out.jsonl")
    command = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *args]
    return CliRunner().invoke(main, command)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_truncate, "bytes at the start"),
        (_rewrite, "it was written to since the run opened it"),
        (_append, "bytes at the start"),
    ],
)
def test_an_input_changed_while_scored_ends_the_run_reporting_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None], said: str
) -> None:
    data = _write(tmp_path / "data.jsonl")
    _changing(monkeypatch, data, change)
    result = _score(data)
    assert result.exit_code == 1, result.output
    assert "data.jsonl changed while it was scored (" in result.output
    assert said in result.output
    assert "results:" not in result.output and "mean recall" not in result.output
    assert f"/{ROWS + 10}" not in result.output and f"{ROWS + 1}/" not in result.output
    assert not (tmp_path / "out.jsonl").exists()
    assert not (tmp_path / "out.jsonl.manifest.json").exists()


def test_a_run_whose_input_changed_is_not_resumed_but_restarted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _write(tmp_path / "data.jsonl")
    original = data.read_bytes()
    _changing(monkeypatch, data, _rewrite)
    assert _score(data).exit_code == 1
    monkeypatch.undo()
    data.write_bytes(original)  # the same bytes the run hashed: still not resumed
    resumed = _score(data)
    assert resumed.exit_code == 1, resumed.output
    assert "holds rows of a run whose input changed: data.jsonl changed while it was" in (
        resumed.output
    )
    assert "--restart" in resumed.output
    again = _score(data, "--restart")
    assert again.exit_code == 0, again.output
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == ROWS


def test_an_unchanged_input_scores_as_before(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.jsonl")
    result = _score(data)
    assert result.exit_code == 0, result.output
    assert f"rows scored {ROWS}/{ROWS}" in result.output


def _table(data: Path) -> None:
    """Three rows, each past what a read buffers: a change at the end is read after the first."""
    pad = "x" * 10_000
    rows = [
        {"groundTruth": f"Fact {i}.", "context": json.dumps([f"Fact {i}.", pad])} for i in range(3)
    ]
    if data.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), data)
    elif data.suffix == ".csv":
        with data.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        records = [{**r, "context": json.loads(r["context"])} for r in rows]
        data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    _aged(data)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_reading_the_rows_of_a_changed_file_raises_once_they_end(
    tmp_path: Path, suffix: str
) -> None:
    data = tmp_path / f"data{suffix}"
    _table(data)
    dataset = open_dataset(data)
    read = dataset.rows()
    next(read)
    with data.open("r+b") as f:  # rewritten in place: one byte other
        f.seek(data.stat().st_size - 2)
        last = f.read(1)
        f.seek(-1, 1)
        f.write(b"X" if last != b"X" else b"Y")
    with pytest.raises(InputChanged, match="changed while it was scored \\(it was written to"):
        list(read)
    assert dataset.version is not None
    with pytest.raises(InputChanged, match="its bytes differ"):
        check_unchanged(data, dataset.version)


def test_a_file_replaced_under_its_name_while_read_is_a_change(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.jsonl", 3)
    dataset = open_dataset(data)
    read = dataset.rows()
    next(read)
    other = _write(tmp_path / "other.jsonl", 3)
    other.write_bytes(other.read_bytes().replace(b"Fact 2", b"Fact 9"))
    other.replace(data)
    with pytest.raises(InputChanged, match="another file now has its name"):
        list(read)


def test_a_ray_run_whose_input_changed_fails_and_its_shards_are_not_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers read their shards' bytes apart: the file is hashed again once they are scored."""
    from offline_recall.errors import ConfigurationError
    from offline_recall.runs import ray_shards
    from offline_recall.runs.execute import run_dataset
    from offline_recall.runs.ray_shards import ShardRunner
    from offline_recall.runs.ray_workers import RayOptions
    from offline_recall.runs.resolve import resolve_run
    from offline_recall.runs.run_manifest import InputSpec
    from offline_recall.runs.shard_folder import ShardFolder

    data = _write(tmp_path / "data.jsonl")

    def score_shards(*args: Any, **kwargs: Any) -> None:
        _, _, _, pending, folder, *_ = args
        folder.write(pending[0].index, [])  # one shard committed, then the file changes
        _rewrite(data)

    monkeypatch.setattr(ray_shards, "require_ray", lambda: None)
    monkeypatch.setattr(ray_shards, "score_shards", score_shards)
    run = resolve_run(engine="fake")
    dataset = open_dataset(data)
    given = InputSpec.of(data, sha256=dataset.sha256)
    folder = ShardFolder(tmp_path / "shards")
    with pytest.raises(InputChanged, match="its bytes differ"):
        run_dataset(run, dataset, given, ShardRunner(folder, RayOptions()))
    data.write_bytes(data.read_bytes().replace(b"Fact 39 fails", b"Fact 39 holds"))
    with pytest.raises(ConfigurationError, match="hold rows of a run whose input changed"):
        run_dataset(run, open_dataset(data), given, ShardRunner(folder, RayOptions()))
