"""The input is read once before scoring: its field names, its count, the survey of its rows
and its sha256 all come from one pass over the file; scoring is the second."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import open_dataset, survey
from offline_recall.data.readers import json_array, jsonl_count

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
    if path.suffix == ".jsonl":
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


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_score_opens_the_input_once_before_scoring_and_once_to_score(
    tmp_path: Path, suffix: str
) -> None:
    data = _write(tmp_path / f"rows{suffix}")
    OPENS.update({str(data): 0, str(data.resolve()): 0})
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert _opens(data) == 2
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["input"]["sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_one_pass_gives_the_count_the_digest_and_the_rows_a_survey_reads(
    tmp_path: Path, suffix: str
) -> None:
    data = _write(tmp_path / f"rows{suffix}")
    OPENS.update({str(data): 0, str(data.resolve()): 0})
    dataset = open_dataset(data)
    found = survey(dataset, [("ground_truth",), ("context",)])
    assert _opens(data) == 1
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
