"""The input is opened once: its field names, its count, the survey of its rows, its sha256 and
the rows a run scores all come from one pass over the file, whose bytes are kept (in memory, or
in a temporary file past `IN_MEMORY`) for the rows to be read from."""

from __future__ import annotations

import csv
import hashlib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import offline_recall
from offline_recall.cli import main
from offline_recall.data import input_copy
from offline_recall.data.dataset import open_dataset, survey
from offline_recall.data.readers import json_array, jsonl_count
from offline_recall.data.version import InputChanged

OPENS: dict[str, int] = {}


def _count_opens(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and args and isinstance(args[0], str | Path):
        name = str(args[0])
        if name in OPENS:
            OPENS[name] += 1


sys.addaudithook(_count_opens)

ROWS = [
    {"input": "Where is the Louvre?", "ground_truth": "The Louvre is in Paris.",
     "context": ["The Louvre is a museum in Paris."]},
    {"input": "What is 2+2?", "ground_truth": "Two plus two is four.", "context": ["2+2=4."]},
    {"input": "Who wrote it?", "ground_truth": "", "context": ["Nobody."]},
]  # fmt: skip


def _write(path: Path) -> Path:
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(ROWS), path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(ROWS, indent=1), encoding="utf-8")
    else:
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(ROWS[0]))
            writer.writeheader()
            writer.writerows({**r, "context": json.dumps(r["context"])} for r in ROWS)
    return path


def _opens(path: Path) -> int:
    return sum(OPENS[name] for name in {str(path), str(path.resolve())})


SUFFIXES = [".jsonl", ".json", ".csv", ".parquet"]


def _counted(path: Path) -> Path:
    OPENS.update({str(path): 0, str(path.resolve()): 0})
    return path


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_score_opens_the_input_once(tmp_path: Path, suffix: str) -> None:
    data = _counted(_write(tmp_path / f"rows{suffix}"))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert _opens(data) == 1
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["input"]["sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(ROWS)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_score_from_python_opens_the_input_once_with_its_copy_on_disk(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(input_copy, "IN_MEMORY", 16)
    data = _counted(_write(tmp_path / f"rows{suffix}"))
    scores = offline_recall.score(data, backend="fake", cache=False)
    assert _opens(data) == 1
    assert [r.line for r in scores] == [1, 2, 3]
    assert scores.manifest.input.sha256 == hashlib.sha256(data.read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_one_pass_gives_the_count_the_digest_the_rows_a_survey_reads_and_the_rows(
    tmp_path: Path, suffix: str
) -> None:
    data = _counted(_write(tmp_path / f"rows{suffix}"))
    dataset = open_dataset(data)
    found = survey(dataset, [("ground_truth",), ("context",)])
    rows = list(dataset.rows())
    assert _opens(data) == 1
    assert len(rows) == 3
    assert dataset.sha256 == hashlib.sha256(data.read_bytes()).hexdigest()
    assert dataset.total == 3 and found.scorable == 1
    assert list(dataset.first_rows()) == list(dataset.rows())


def test_the_count_is_the_readers_own(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_bytes(b'{"a": 1}\n\n  \n{"a": 2}\r\n\xff\xfe\n{"a"\n')
    assert open_dataset(data, context_required=False).total == jsonl_count(data) == 4
    array = tmp_path / "rows.json"
    array.write_text('[{"a": 1},\r\n 2, {"b": [1]}]', encoding="utf-8")
    assert open_dataset(array, context_required=False).total == len(json_array(array)) == 3


def test_rows_past_the_kept_ones_are_read_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("offline_recall.data.scan.HEAD", 2)
    data = _write(tmp_path / "rows.jsonl")
    dataset = open_dataset(data)
    assert len(dataset.head) == 2
    assert list(dataset.first_rows()) == list(dataset.rows())


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_copy_on_disk_reads_as_one_in_memory(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _write(tmp_path / f"rows{suffix}")
    held = list(open_dataset(data).rows())
    monkeypatch.setattr(input_copy, "IN_MEMORY", 16)
    dataset = open_dataset(data)
    assert dataset.copy is not None and dataset.copy.size == data.stat().st_size
    assert list(dataset.rows()) == held
    assert list(dataset.first_rows()) == held


def test_the_rows_scored_are_the_bytes_hashed_whatever_the_file_holds_since(
    tmp_path: Path,
) -> None:
    data = _write(tmp_path / "rows.jsonl")
    dataset = open_dataset(data)
    before = list(dataset.rows())
    data.write_text(data.read_text(encoding="utf-8").replace("Paris", "Rome"), encoding="utf-8")
    read = dataset.rows()
    assert [next(read) for _ in before] == before
    with pytest.raises(InputChanged, match=r"rows\.jsonl changed while it was scored"):
        next(read)


def test_a_dataset_sent_to_another_process_leaves_its_copy_behind(tmp_path: Path) -> None:
    """A Ray worker reads the file by its path: the bytes kept are not sent with the dataset."""
    dataset = open_dataset(_write(tmp_path / "rows.jsonl"))
    sent = pickle.loads(pickle.dumps(dataset))
    assert sent.copy is not None and sent.copy.size == 0
    assert sent.total == dataset.total and sent.sha256 == dataset.sha256
