"""Rows of one file in different field conventions: each row is read by its own names, and a
row no convention fits says which fields it has and how to name its context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import Row, RowError, open_dataset

MASTRA = {"input": "Where?", "groundTruth": "Paris is in France.", "context": ["Paris, France."]}
RAGAS = {
    "user_input": "Where?",
    "reference": "Rome is in Italy.",
    "retrieved_contexts": ["Rome, Italy."],
}
NEITHER = {"question": "Where?", "answer": "Bern.", "chunks": ["Bern, Switzerland."]}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_ragas_rows_after_mastra_rows_are_read_by_their_own_names(tmp_path: Path) -> None:
    data = _write(tmp_path / "mixed.jsonl", [MASTRA, MASTRA, RAGAS])
    dataset = open_dataset(data)
    rows = list(dataset.rows())
    assert all(isinstance(r, Row) for r in rows), rows
    last = rows[2]
    assert isinstance(last, Row)
    assert (last.input, last.ground_truth, last.context) == (
        "Where?",
        "Rome is in Italy.",
        ["Rome, Italy."],
    )
    assert dataset.detection.convention == "Mastra"
    assert "some rows in RAGAS names, each read by its own" in dataset.detection.describe()


def test_the_cli_scores_every_row_of_a_mixed_file(tmp_path: Path) -> None:
    data = _write(tmp_path / "mixed.jsonl", [MASTRA, RAGAS])
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    statuses = [r["results"]["context-recall-scorer"]["status"] for r in records]
    assert statuses == ["ok", "ok"]
    assert records[1]["ground_truth"] == "Rome is in Italy."


def test_a_row_no_convention_fits_names_its_fields_and_map(tmp_path: Path) -> None:
    data = _write(tmp_path / "mixed.jsonl", [MASTRA, NEITHER])
    rows = list(open_dataset(data).rows())
    error = rows[1]
    assert isinstance(error, RowError)
    assert error.message == (
        "line 2: missing field 'context' (fields found: question, answer, chunks); "
        "name the context's field with --map context=FIELD"
    )


def test_map_applies_to_every_row(tmp_path: Path) -> None:
    data = _write(tmp_path / "mapped.jsonl", [NEITHER, {**NEITHER, "answer": "Rome."}])
    rows = list(open_dataset(data, {"context": "chunks", "ground_truth": "answer"}).rows())
    assert [r.ground_truth for r in rows if isinstance(r, Row)] == ["Bern.", "Rome."]
