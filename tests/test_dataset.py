from __future__ import annotations

import pytest

from offline_recall.data.dataset import Row, RowError, parse_line


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
    assert row.message == "line 4: not valid JSON: Invalid control character at column 19"
