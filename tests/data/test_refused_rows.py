"""The records a reader refuses, each as its row's error saying why: nesting deeper than the
limit, and text holding bytes that are not UTF-8. A record just inside the limit is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from offline_recall.data.dataset import RowError, open_dataset

GOOD: dict[str, Any] = {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


def nested(levels: int) -> Any:
    """A value of `levels` levels: lists around a string."""
    value: Any = "x."
    for _ in range(levels):
        value = [value]
    return value


def read(path: Path) -> list[str]:
    """Each row's error message, or "read" for a row that was read."""
    return [r.message if isinstance(r, RowError) else "read" for r in open_dataset(path).rows()]


def test_a_record_at_the_nesting_limit_is_read_and_one_level_more_is_refused(
    tmp_path: Path,
) -> None:
    """The record is the first level; each field's value adds its own (here 99 and 100)."""
    path = tmp_path / "data.jsonl"
    rows = [{**GOOD, "input": nested(99)}, {**GOOD, "input": nested(100), "n": 1}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read(path) == ["read", "line 2: a value is nested more than 100 levels deep"]


def test_text_that_is_not_utf8_is_refused_whatever_sits_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(
        b'[{"groundTruth": "caf\xe9.", "context": ["Paris."], "n": 1},'
        b' {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}]'
    )
    assert read(path) == ["row 1: holds bytes that are not valid UTF-8 text", "read"]
