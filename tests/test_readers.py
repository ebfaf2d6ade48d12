"""The data readers' own rules: where a JSON error is, and a JSON array read item by item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall.data.readers import (
    QUOTED,
    Unreadable,
    csv_records,
    json_array,
    json_error,
    line_error,
)
from offline_recall.errors import DatasetError


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
