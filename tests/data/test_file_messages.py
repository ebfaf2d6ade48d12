"""What a user reads of a file the readers cannot take, or of one line of it, word for word:
the formats known, a line that is not UTF-8, a line cut short (its columns counted as written,
trailing blanks included)."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall.data.dataset import RowError, open_dataset
from offline_recall.data.readers import jsonl_record
from offline_recall.errors import DatasetError

GOOD = b'{"groundTruth": "Paris.", "context": ["Paris."]}'


def test_an_unknown_extension_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        open_dataset(tmp_path / "data.txt")
    assert str(caught.value) == (
        "data.txt: unknown data format '.txt'; use one of .jsonl, .ndjson, .json, .csv, .parquet"
    )


def test_a_bad_line_is_its_rows_error_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    cut = GOOD.removesuffix(b"}") + b"   \t"
    path.write_bytes(b"\n".join([GOOD, cut, b'{"groundTruth": "caf\xe9."}']) + b"\n")
    errors = [r.message for r in open_dataset(path).rows() if isinstance(r, RowError)]
    assert errors == [
        "line 2: not valid JSON: the line ends before the JSON does (Expecting ',' delimiter "
        "at its end, column 52: is a closing } or ] missing?); the line starts "
        '`{"groundTruth": "Paris."` and ends `context": ["Paris."]   \\u0009`',
        "line 3: the line is not valid UTF-8 text",
    ]


def test_text_after_a_json_lines_object_makes_the_row_invalid() -> None:
    assert jsonl_record('{"ground_truth": "a"}\r\n') == {"ground_truth": "a"}
    reason = jsonl_record('{"ground_truth": "a"}X\n')
    assert isinstance(reason, str) and reason.startswith("not valid JSON")
