"""Datasets in each input shape, field-name detection and --map, and result files."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import Row, RowError, open_dataset
from offline_recall.data.fields import parse_mapping
from offline_recall.data.readers import decode_context_cell
from offline_recall.errors import DatasetError
from offline_recall.runs.results import read_results

from ..conftest import EXAMPLE, RECALL


def example_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]


def write_csv(path: Path, records: list[dict[str, Any]], context: str = "json") -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(records[0]))
        writer.writeheader()
        for r in records:
            cell = json.dumps(r["context"]) if context == "json" else " || ".join(r["context"])
            writer.writerow({**r, "context": cell})
    return path


def write_parquet(path: Path, records: list[dict[str, Any]]) -> Path:
    pq.write_table(pa.Table.from_pylist(records), path)
    return path


def rows(path: Path, **kwargs: Any) -> list[Row | RowError]:
    return list(open_dataset(path, **kwargs).rows())


def same_rows(a: list[Row | RowError], b: list[Row | RowError]) -> None:
    assert [r.model_dump() for r in a] == [r.model_dump() for r in b]


def test_jsonl_is_read_with_mastra_names_detected() -> None:
    dataset = open_dataset(EXAMPLE)
    assert dataset.total == 12
    assert dataset.detection.convention == "Mastra"
    assert dataset.detection.describe() == (
        "JSON Lines, Mastra field names: id=id, input=input, ground_truth=groundTruth, "
        "context=context"
    )
    got = list(dataset.rows())
    assert all(isinstance(r, Row) for r in got)
    first = got[0]
    assert isinstance(first, Row)
    assert first.line == 1 and first.id == "eiffel-full"
    assert first.ground_truth == "The Eiffel Tower is in Paris. It was completed in 1889."
    assert len(first.context) == 2


def test_json_array_csv_and_parquet_give_the_same_rows_as_jsonl(tmp_path: Path) -> None:
    records = example_records()
    expected = rows(EXAMPLE)
    array = tmp_path / "data.json"
    array.write_text(json.dumps(records))
    same_rows(rows(array), expected)
    same_rows(rows(write_csv(tmp_path / "data.csv", records)), expected)
    same_rows(rows(write_parquet(tmp_path / "data.parquet", records)), expected)
    separated = write_csv(tmp_path / "sep.csv", records, context="separator")
    same_rows(rows(separated, context_separator="||"), expected)


def test_ragas_names_are_detected(tmp_path: Path) -> None:
    records = [
        {
            "user_input": "Where is it?",
            "reference": "It is in Paris.",
            "retrieved_contexts": ["Paris, France."],
            "response": "Paris",
        }
    ]
    path = write_parquet(tmp_path / "ragas.parquet", records)
    dataset = open_dataset(path)
    assert dataset.detection.convention == "RAGAS"
    assert "input=user_input, ground_truth=reference, context=retrieved_contexts" in (
        dataset.detection.describe()
    )
    (row,) = dataset.rows()
    assert isinstance(row, Row)
    assert (row.input, row.ground_truth, row.context) == (
        "Where is it?",
        "It is in Paris.",
        ["Paris, France."],
    )


def test_our_own_names_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "ours.jsonl"
    path.write_text('{"input": "q", "ground_truth": "A.", "context": ["c"]}\n')
    assert open_dataset(path).detection.convention == "offline-recall"


def test_map_names_other_columns_and_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "rose.jsonl"
    path.write_text(
        json.dumps({"id": "r1", "reference": "A. B.", "chunks": ["A."], "system": "x"}) + "\n"
    )
    with pytest.raises(DatasetError, match=r"--map context=COLUMN \(fields: id, reference"):
        open_dataset(path)
    dataset = open_dataset(path, mapping=parse_mapping(["context=chunks"]))
    assert dataset.detection.describe() == (
        "JSON Lines, RAGAS field names with --map context=chunks: "
        "id=id, ground_truth=reference, context=chunks"
    )
    (row,) = dataset.rows()
    assert isinstance(row, Row)
    assert (row.id, row.ground_truth, row.context) == ("r1", "A. B.", ["A."])


def test_map_overrides_a_detected_field(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('question,answer,context\nq,"The answer.","[""c""]"\n')
    dataset = open_dataset(path, mapping={"input": "question", "ground_truth": "answer"})
    (row,) = dataset.rows()
    assert isinstance(row, Row)
    assert (row.input, row.ground_truth, row.context) == ("q", "The answer.", ["c"])


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("context", "expected FIELD=COLUMN"),
        ("context=", "expected FIELD=COLUMN"),
        ("answer=x", "unknown field 'answer'; fields: id, input, ground_truth, context"),
    ],
)
def test_bad_map_items_say_what_is_expected(item: str, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        parse_mapping([item])


def test_missing_ground_truth_column_is_one_line_naming_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('input,context\nq,"[""c""]"\n')
    said = open_dataset(path).detection.missing_ground_truth("data.csv", "recall")
    assert said is not None and "\n" not in said
    assert said.endswith("--map ground_truth=COLUMN (fields: input, context)")
    path.write_text('input,ground_truth,context\nq,,"[""c""]"\n')
    assert open_dataset(path).detection.missing_ground_truth("data.csv", "recall") is None


def test_bad_rows_become_row_errors_and_the_rest_are_read(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text(
        "id,groundTruth,context\n"
        'a,A.,"[""c""]"\n'
        'b,B.,"[not json"\n'
        'c,C.,"[1, 2]"\n'
        "d,D.,plain text chunk\n"
        "e,E.,,extra\n"
        "f,F.,\n"
        "g,G.,[]\n"
    )
    got = rows(path)
    assert [type(r).__name__ for r in got] == [
        "Row",
        "RowError",
        "RowError",
        "Row",
        "RowError",
        "RowError",
        "Row",
    ]
    assert isinstance(got[1], RowError) and got[1].message.startswith("row 2: 'context' is not")
    assert got[1].id == "b"
    assert isinstance(got[2], RowError)
    assert (
        got[2].message == "row 3: 'context' is not a JSON list of strings: an item is not a string"
    )
    assert isinstance(got[3], Row) and got[3].context == ["plain text chunk"]
    assert isinstance(got[4], RowError) and "more cells than the header" in got[4].message
    assert isinstance(got[5], RowError) and got[5].message.startswith(
        "row 6: missing field 'context' (fields found: id, groundTruth); name the context's "
    )
    assert isinstance(got[6], Row) and got[6].context == []


def test_json_array_items_that_are_not_objects_are_row_errors(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('[{"groundTruth": "A.", "context": ["c"]}, 3]')
    got = rows(path)
    assert isinstance(got[0], Row)
    assert isinstance(got[1], RowError) and got[1].message == "row 2: expected a JSON object"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("data.txt", "", "unknown data format '.txt'"),
        ("data.json", "{oops", "not valid JSON"),
        ("data.json", '{"context": []}', "expected a JSON array of objects"),
        ("data.parquet", "not parquet", "not a readable Parquet file"),
    ],
)
def test_unreadable_files_are_one_error(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DatasetError, match=message):
        open_dataset(path)


def test_context_cells_decode_lists_separators_and_single_chunks() -> None:
    assert decode_context_cell('["a", "b"]', None) == ["a", "b"]
    assert decode_context_cell("a | b |", "|") == ["a", "b"]
    assert decode_context_cell("just text", None) == ["just text"]
    assert decode_context_cell("  ", None) == []
    with pytest.raises(ValueError, match="an item is not a string"):
        decode_context_cell("[1, 2]", None)


def score(data: Path, out: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), *args]
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_every_input_format_scores_the_same(tmp_path: Path) -> None:
    records = example_records()
    reference = tmp_path / "from-jsonl.jsonl"
    score(EXAMPLE, reference)
    expected = [r.model_dump() for r in read_results(reference)]
    inputs = {
        "json": tmp_path / "data.json",
        "csv": write_csv(tmp_path / "data.csv", records),
        "parquet": write_parquet(tmp_path / "data.parquet", records),
    }
    inputs["json"].write_text(json.dumps(records))
    for name, data in inputs.items():
        out = tmp_path / f"from-{name}.parquet"
        output = score(data, out, "--format", "parquet")
        assert "Mastra field names" in output
        assert [r.model_dump() for r in read_results(out)] == expected, name


def test_results_carry_input_ground_truth_and_context(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    score(EXAMPLE, out)
    first = json.loads(out.read_text().splitlines()[0])
    assert list(first)[:6] == ["line", "id", "input", "output", "ground_truth", "context"]
    assert first["input"] == "Where is the Eiffel Tower and when was it finished?"
    assert first["context"][1].startswith("Construction of the tower")


def test_parquet_results_keep_structured_inputs_as_json_text(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        json.dumps({"id": 7, "input": {"q": "x"}, "groundTruth": "Paris.", "context": ["Paris."]})
        + "\n{oops\n"
    )
    out = tmp_path / "results.parquet"
    score(data, out)
    ok, broken = read_results(out)
    assert ok.id == "7" and ok.input == '{"q": "x"}' and ok.result(RECALL).verdicts[0].supported
    bad = broken.result(RECALL)
    assert bad.status == "error" and broken.context is None and bad.score is None


def test_table_format_prints_items_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--format", "table"]
    )
    assert result.exit_code == 0, result.output
    assert "eiffel-full" in result.output and "mean recall" in result.output
    assert list(tmp_path.iterdir()) == []


def test_format_and_out_extension_must_agree(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["score", str(EXAMPLE), "--backend", "fake", "--format", "parquet", "--out", "r.jsonl"],
    )
    assert result.exit_code == 1
    assert "does not end in .parquet" in result.output


def test_missing_context_column_is_a_one_line_cli_error(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("question,answer\nq,a\n")
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake"])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: data.csv: no retrieved_contexts or contexts field")
    assert line.endswith("--map context=COLUMN (fields: question, answer)")


def test_cli_reads_csv_with_a_separator_and_mapped_columns(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text(
        "question,answer,chunks\n"
        "Where?,The tower is in Paris. It opened in 1889.,The tower is in Paris. ## Rome is old.\n"
    )
    out = tmp_path / "results.jsonl"
    output = score(
        data,
        out,
        "--context-sep",
        "##",
        *("--map", "input=question", "--map", "ground_truth=answer", "--map", "context=chunks"),
    )
    assert "CSV delimited by commas, RAGAS field names with --map input=question" in output
    (record,) = read_results(out)
    assert record.input == "Where?"
    assert record.output is None  # `answer` is the ground truth here, not also RAGAS's output
    assert record.context == ["The tower is in Paris.", "Rome is old."]
    assert [v.supported for v in record.result(RECALL).verdicts] == [True, False]
    assert record.result(RECALL).score == 0.5
