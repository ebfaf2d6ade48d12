"""Shards read apart give exactly the rows, numbers and row errors of the whole file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from offline_recall.data.dataset import open_dataset
from offline_recall.data.shards import plan_shards, read_shards
from offline_recall.errors import DatasetError


def _jsonl(path: Path) -> None:
    good = [
        json.dumps({"id": i, "groundTruth": f"Fact {i} é 😀.", "context": [f"c{i}"]}).encode()
        for i in range(9)
    ]
    lines = [
        good[0] + b"\n",
        b"\n",  # blank lines count in numbering
        good[1] + b"\r\n",
        b"not json\n",
        good[2] + b"\r",  # a lone CR ends a line in text mode
        b"   \t \n",
        good[3] + b"\n",
        b'{"id": 4, "context": "not a list"}\n',
        b'{"id": "\xff\xfe bad utf-8", "context": []}\n',
        b"[1, 2]\n",
        good[4] + b"\n",
        good[5] + b"\n\n\n",
        good[6] + b"\n",
        good[7] + b"\n",
        good[8],  # no newline at the end
    ]
    path.write_bytes(b"".join(lines))


def _csv(path: Path) -> None:
    text = (
        "\ufeffid,ground_truth,context\r\n"
        '1,"A fact.","[""c1""]"\r\n'
        '2,"Two lines\nof truth.",plain chunk\r\n'
        "\r\n"
        '3,x,"[1, 2]"\r\n'
        "4,too,many,cells\r\n"
        '5,"quoted, comma","[""a"", ""b""]"\r\n'
        "7,y,z\r"  # a lone CR ends a record too
        "8,,[]\n"
        "9,last,one\r\n"
        '11,"a lone CR\rinside quotes",x\r\n'
        '6,"an unterminated quote runs to the end\r\n'
        "10,never,read"
    )
    path.write_bytes(text.encode("utf-8"))


def _parquet(path: Path) -> None:
    rows = [
        {"id": f"r{i}", "ground_truth": f"Fact {i}.", "context": [f"c{i}"] if i % 5 else None}
        for i in range(23)
    ]
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=7)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
@pytest.mark.parametrize("name", ["data.jsonl", "data.csv", "data.parquet"])
def test_shards_add_up_to_the_whole_file(tmp_path: Path, name: str, size: int) -> None:
    path = tmp_path / name
    {"data.jsonl": _jsonl, "data.csv": _csv, "data.parquet": _parquet}[name](path)
    dataset = open_dataset(path)
    plan = plan_shards(dataset, size)
    assert [s.index for s in plan.shards] == list(range(len(plan.shards)))
    assert sum(s.records for s in plan.shards) == dataset.total
    assert all(s.records <= size for s in plan.shards)

    read = list(read_shards(dataset, plan, list(plan.shards)))
    assert [len(rows) for _, rows in read] == [s.records for s in plan.shards]
    assert [r for _, rows in read for r in rows] == list(dataset.rows())

    # any subset, in any order, reads the same
    odd = [s for s in reversed(plan.shards) if s.index % 2]
    again = dict((s.index, rows) for s, rows in read_shards(dataset, plan, odd))
    assert all(again[s.index] == rows for s, rows in read if s.index % 2)


def test_a_json_array_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"context": ["a"]}]))
    with pytest.raises(DatasetError, match="convert it to JSON Lines"):
        plan_shards(open_dataset(path), 10)
