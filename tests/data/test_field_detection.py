"""Which tool's field names a file is read by, and the line that says so: most rows decide,
then the names its columns fit, then the convention listed first; `--map` names the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import open_dataset

MASTRA = {"groundTruth": "Paris is in France.", "context": ["Paris, France."]}
RAGAS = {"user_input": "Where?", "reference": "Rome is in Italy.", "retrieved_contexts": ["Rome."]}
OURS = {"ground_truth": "Bern is in Switzerland.", "context": ["Bern, Switzerland."]}


def described(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return open_dataset(path).detection.describe()


def test_most_rows_decide_though_the_columns_fit_another_convention_better(
    tmp_path: Path,
) -> None:
    """All the columns together fit RAGAS best (three of its first names); two rows of three
    are Mastra's."""
    assert described(tmp_path / "data.jsonl", [MASTRA, MASTRA, RAGAS]) == (
        "JSON Lines, Mastra field names (some rows in RAGAS names, each read by its own): "
        "ground_truth=groundTruth, context=context"
    )


def test_on_a_tie_the_convention_listed_first_is_taken(tmp_path: Path) -> None:
    assert described(tmp_path / "data.jsonl", [MASTRA, OURS]) == (
        "JSON Lines, offline-recall field names: ground_truth=ground_truth, context=context"
    )


def test_every_other_convention_the_rows_follow_is_named(tmp_path: Path) -> None:
    assert described(tmp_path / "data.jsonl", [RAGAS, RAGAS, RAGAS, OURS, MASTRA]) == (
        "JSON Lines, RAGAS field names (some rows in offline-recall and Mastra names, each "
        "read by its own): input=user_input, ground_truth=reference, context=retrieved_contexts"
    )


def test_each_map_is_named_and_a_column_may_hold_an_equals_sign(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text('q,gt=v2,chunks\nWhere?,Paris is in France.,"[""Paris is in France.""]"\n')
    out = tmp_path / "out.jsonl"
    maps = ["--map", "ground_truth=gt=v2", "--map", "context=chunks"]
    args = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *maps]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (
        "reading data.csv: CSV delimited by commas, offline-recall field names with --map "
        "ground_truth=gt=v2 --map context=chunks: ground_truth=gt=v2, context=chunks"
    ) in result.output
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["results"]["context-recall-scorer"]["score"] == 1.0


def test_a_map_that_takes_the_context_column_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"input": "Where?", **MASTRA}) + "\n")
    args = ["score", str(data), "--backend", "fake", "--no-cache", "--map", "input=context"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 1
    assert (
        "no column is left for the context: --map input=context reads context as a question; "
        "name the context's column with --map context=COLUMN"
    ) in result.output
    assert "no  field" not in result.output


def test_a_map_that_takes_a_field_a_scorer_reads_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"input": "Where?", "output": "Paris.", **MASTRA}) + "\n")
    maps = ["--map", "ground_truth=output", "--map", "id=input"]
    args = ["score", str(data), "--backend", "fake", "--no-cache", *maps]
    result = CliRunner().invoke(
        main, [*args, "--scorer", "context-relevance-scorer", "--out", str(tmp_path / "o.jsonl")]
    )
    assert result.exit_code == 1
    assert "no column is left for a question" in result.output
    assert "--map id=input reads input as an id" in result.output
