"""How a ground truth is read from the field that holds it, and what a file holding none is
told."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.cli import main

ANSWERS = ["Paris is in France.", "Lyon is in France."]


@pytest.mark.parametrize(
    ("key", "claims"),
    [
        ("ground_truths", ANSWERS),
        ("groundTruth", ['["Paris is in France.", "Lyon is in France."]']),
    ],
    ids=["ground_truths: one answer a line", "groundTruth: its JSON text"],
)
def test_a_list_of_answers_is_read_by_the_field_that_holds_it(key: str, claims: list[str]) -> None:
    """RAGAS's `ground_truths` lists reference answers; any other ground truth that is not
    text is judged as its JSON text, as the reference does."""
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=ANSWERS))
    result = scorer.run({key: ANSWERS})
    assert [v.claim for v in result.verdicts] == claims


def test_a_file_whose_rows_hold_no_field_is_told_so(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("{}\n{}\n")
    args = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.output.endswith("name its column with --map ground_truth=COLUMN (fields: none)\n")
