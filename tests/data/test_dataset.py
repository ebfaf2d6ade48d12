from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall.data.dataset import Row, RowError, open_dataset, row_error, row_from_record
from offline_recall.data.fields import FieldMap
from offline_recall.data.readers import jsonl_record
from offline_recall.errors import DatasetError


def parse_line(line: int, text: str) -> Row | RowError:
    """One JSON Lines record read as the reader of a whole file reads it, with the default
    field names."""
    record = jsonl_record(text)
    if isinstance(record, str):
        return row_error(line, record)
    return row_from_record(line, record, FieldMap())


def test_reads_both_spellings_of_ground_truth() -> None:
    a = parse_line(1, '{"input": "q", "groundTruth": "A.", "context": ["c"]}')
    b = parse_line(2, '{"input": "q", "ground_truth": "A.", "context": ["c"], "id": 7}')
    assert isinstance(a, Row) and a.ground_truth == "A."
    assert isinstance(b, Row) and b.ground_truth == "A." and b.id == 7


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "line 3: not valid JSON"),
        ("[1, 2]", "line 3: expected a JSON object"),
        ('{"groundTruth": "A."}', "line 3: missing field 'context'"),
        ('{"groundTruth": "A.", "context": "c"}', "line 3: 'context' must be a list of strings"),
        ('{"groundTruth": "A.", "context": [1]}', "line 3: 'context' must be a list of strings"),
        ('{"groundTruth": "A.", "ground_truth": "B.", "context": []}', "both groundTruth"),
    ],
)
def test_broken_lines_become_row_errors_naming_the_line(text: str, message: str) -> None:
    row = parse_line(3, text)
    assert isinstance(row, RowError)
    assert row.line == 3
    assert message in row.message


def test_a_broken_json_line_says_what_is_wrong_and_where() -> None:
    row = parse_line(4, '{"groundTruth": "A\x01.", "context": []}')
    assert isinstance(row, RowError)
    assert row.message == (
        "line 4: not valid JSON: Invalid control character at column 19, where it reads "
        '`\\u0001.", "context": []}`; the line: `{"groundTruth": "A\\u0001.", "context": []}`'
    )
    assert row.error == row.message.removeprefix("line 4: ")


def test_a_line_cut_short_says_so_and_quotes_its_start_and_end() -> None:
    text = json.dumps(
        {"input": "Who wrote War and Peace?", "groundTruth": "Tolstoy.", "context": ["By Tolstoy."]}
    )[:-1]  # the closing } cut off
    row = parse_line(4, text + "\n")
    assert isinstance(row, RowError)
    assert row.message == (
        "line 4: not valid JSON: the line ends before the JSON does (Expecting ',' delimiter "
        "at its end, column 92: is a closing } or ] missing?); the line starts "
        '`{"input": "Who wrote War` and ends `ontext": ["By Tolstoy."]`'
    )
    assert "line 4: line 4" not in row.message


def test_a_missing_context_names_the_fields_found_and_map() -> None:
    row = parse_line(3, '{"question": "q", "reference": "A.", "contexts": ["c"]}')
    assert isinstance(row, RowError)
    assert row.message == (
        "line 3: missing field 'context' (fields found: question, reference, contexts); "
        "name the context's field with --map context=FIELD"
    )


def test_a_run_whose_scorers_read_no_context_reads_rows_without_one(tmp_path: Path) -> None:
    """Without a scorer that reads the context, a record without one is a row (context
    None), a file without a context column is read, and a context given is still checked."""
    fields = FieldMap()
    row = row_from_record(1, {"input": "q", "output": "a"}, fields, context_required=False)
    assert isinstance(row, Row) and row.context is None and row.output == "a"
    bad = row_from_record(2, {"output": "a", "context": "c"}, fields, context_required=False)
    assert isinstance(bad, RowError) and "must be a list of strings" in bad.message
    table = tmp_path / "answers.csv"
    table.write_text("input,output\nWho wrote Hamlet?,Shakespeare.\n")
    with pytest.raises(DatasetError, match="no context field for the context"):
        open_dataset(table)
    rows = list(open_dataset(table, context_required=False).rows())
    assert [(r.input, r.context) for r in rows if isinstance(r, Row)] == [
        ("Who wrote Hamlet?", None)
    ]
