"""The data readers' own rules: where a JSON error is, and a JSON array read item by item."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import RowError, open_dataset
from offline_recall.data.readers import (
    QUOTED,
    Unreadable,
    csv_records,
    json_array,
    json_error,
    line_error,
)
from offline_recall.data.shards import plan_shards, read_shards
from offline_recall.errors import DatasetError
from offline_recall.scorer.registry import RECALL


def decode_error(text: str) -> json.JSONDecodeError:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    return caught.value


def test_a_json_error_says_what_is_wrong_and_its_line_and_column() -> None:
    error = decode_error('[\n  {"a": 1},\n  {"b": }\n]')
    assert json_error(error) == "Expecting value at line 3, column 9"
    assert json_error(error, line=False) == "Expecting value at column 9"


def test_a_json_error_ending_in_at_is_not_said_twice() -> None:
    error = decode_error('{"a": "no end')
    assert error.msg.endswith(" at")
    assert json_error(error) == "Unterminated string starting at line 1, column 7"


def test_a_broken_json_file_names_itself_and_the_place(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('[{"groundTruth": "A."},\n {"groundTruth": }]')
    with pytest.raises(DatasetError) as caught:
        json_array(path)
    assert str(caught.value) == "data.json: not valid JSON: Expecting value at line 2, column 18"


def test_an_item_too_deep_to_parse_is_its_own_error_and_the_others_are_read(
    tmp_path: Path,
) -> None:
    """Brackets, commas and escaped quotes inside strings do not cut an item; a scalar item is
    one whether a space comes before it or not."""
    deep = "[" * 100_000 + "]" * 100_000
    text = f'[3,{{"a": "x],\\"{{", "b": [1, {{"c": 2}}]}}, {deep},"s,t]", {{"d": [] }},null]'
    path = tmp_path / "data.json"
    path.write_text(text)
    found = json_array(path)
    assert len(found) == 6
    assert found[:2] == [3, {"a": 'x],"{', "b": [1, {"c": 2}]}]
    assert isinstance(found[2], Unreadable) and "nested more than" in found[2].reason
    assert found[3:] == ["s,t]", {"d": []}, None]


def test_a_json_file_with_bytes_that_are_not_utf8_is_still_read(tmp_path: Path) -> None:
    """A stray byte is kept as a lone surrogate (later replaced), not a crash of the whole file."""
    path = tmp_path / "data.json"
    path.write_bytes(b'[{"groundTruth": "caf\xe9."}]')
    assert json_array(path) == [{"groundTruth": "caf\udce9."}]


def test_a_csv_row_longer_than_its_header_is_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('groundTruth,context\nA.,"[""a""]",extra\nB.,"[""b""]"\n')
    assert list(csv_records(path)) == [
        (1, "has more cells than the header has columns"),
        (2, {"groundTruth": "B.", "context": '["b"]'}),
    ]


def test_a_line_short_enough_is_quoted_whole_and_a_longer_one_by_its_ends() -> None:
    short = '{"a": ' + "1" * (2 * QUOTED - 7) + "x"
    assert len(short) == 2 * QUOTED
    said = line_error(decode_error(short), short)
    assert said.endswith(f"; the line: `{short}`")
    longer = short + "1"
    said = line_error(decode_error(longer), longer)
    assert said.endswith(f"; the line starts `{longer[:QUOTED]}` and ends `{longer[-QUOTED:]}`")


def _parquet_with_a_stray_byte(path: Path, column: str) -> Path:
    """Three rows whose second holds the byte 0xff in `column`: a binary ground truth, a text
    ground truth (bytes labelled UTF-8 that are not), or a context of binary chunks."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    truths = [b"Paris is in France.", b"Paris \xff is in France.", b"Rome is in Italy."]
    chunks = [[b"Paris is in France."], [b"Paris \xff."], [b"Rome is in Italy."]]
    columns: dict[str, Any] = {
        "input": ["q", "q", "q"],
        "ground_truth": [t.decode("latin-1").replace("\xff", "") for t in truths],
        "context": [[c.decode("latin-1").replace("\xff", "") for c in cs] for cs in chunks],
    }
    if column == "binary":
        columns["ground_truth"] = pa.array(truths, pa.binary())
    elif column == "text":
        columns["ground_truth"] = pa.array(truths, pa.binary()).view(pa.string())
    else:
        columns["context"] = pa.array(chunks, pa.list_(pa.binary()))
    pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize("column", ["binary", "text", "chunks"])
def test_parquet_bytes_that_are_not_utf8_are_the_rows_error_in_a_run_and_its_resume(
    tmp_path: Path, column: str
) -> None:
    data = _parquet_with_a_stray_byte(tmp_path / "data.parquet", column)
    out = tmp_path / "r.jsonl"
    command = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out)]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    scored = out.read_text()
    records = [json.loads(line)["results"][RECALL] for line in scored.splitlines()]
    assert [r["status"] for r in records] == ["ok", "error", "ok"]
    assert records[1]["error"] == "holds bytes that are not valid UTF-8 text"
    with sqlite3.connect(f"{out}.run.sqlite") as db:
        db.execute("DELETE FROM results WHERE line >= 2")
    resumed = CliRunner().invoke(main, command)
    assert resumed.exit_code == 0, resumed.output
    assert "resuming: 1 of 3 rows" in resumed.output
    assert out.read_text() == scored


def test_parquet_shards_read_a_stray_byte_as_the_whole_file_does(tmp_path: Path) -> None:
    data = _parquet_with_a_stray_byte(tmp_path / "data.parquet", "text")
    dataset = open_dataset(data)
    plan = plan_shards(dataset, 1)
    sharded = [row for _, rows in read_shards(dataset, plan, list(plan.shards)) for row in rows]
    assert sharded == list(dataset.rows())
    assert isinstance(sharded[1], RowError) and "UTF-8" in sharded[1].message
