"""What a run can tell from its input is told before any model loads: rows none of which can be
scored, a field a scorer reads that no row holds, a column under another tool's name; a run
where a scorer failed every row exits non-zero; a run with nothing left loads no model; and a
run stopped with Ctrl-C says what it kept and the command that resumes it."""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.cli.score import resume_command
from offline_recall.data.dataset import open_dataset, survey
from offline_recall.engines import Failed, FakeEngine
from offline_recall.runs.results import read_results
from offline_recall.runs.store import RunStore

from ..conftest import RECALL

RELEVANCE = "context-relevance-scorer"
FAITHFULNESS = "faithfulness-scorer"
PARIS = "Paris is in France."


def _jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("out.jsonl")
    return CliRunner().invoke(
        main,
        ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache", *args],
    )


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every model resolved or started is recorded here; a test asserts there was none."""
    calls: list[object] = []
    resolve = importlib.import_module("offline_recall.runs.resolve")
    score = importlib.import_module("offline_recall.runs.session")

    def started(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(resolve, "resolve_run", started)
    monkeypatch.setattr(score.Scoring, "start", started)
    return calls


# Rows none of which can be scored ------------------------------------------------------------


def test_rows_none_of_which_can_be_scored_are_refused_before_the_model(
    tmp_path: Path, no_model: list[object]
) -> None:
    rows = [{"input": f"q{i}", "groundTruth": PARIS, "context": PARIS} for i in range(7)]
    data = _jsonl(tmp_path / "strings.jsonl", rows)
    result = _score(data)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "Error: strings.jsonl: none of its 7 rows can be scored:",
        *(f"  line {n}: 'context' must be a list of strings" for n in range(1, 6)),
        "  and 2 more",
    ]
    assert no_model == []
    assert not data.with_name("out.jsonl").exists()
    assert not data.with_name("out.jsonl.run.sqlite").exists()


def test_a_refused_rows_record_keeps_its_fields_as_read(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "input": "Where?", "groundTruth": PARIS, "context": [PARIS]},
        {"id": "b", "input": "Where is it?", "groundTruth": PARIS, "context": PARIS, "k": 1},
    ]
    result = _score(_jsonl(tmp_path / "data.jsonl", rows))
    assert result.exit_code == 0, result.output
    refused = read_results(tmp_path / "out.jsonl")[1]
    assert refused.result(RECALL).error == "'context' must be a list of strings"
    assert (refused.id, refused.input, refused.ground_truth) == ("b", "Where is it?", PARIS)
    assert refused.context is None and refused.metadata == {"k": 1, "context": PARIS}


def test_two_ground_truths_keep_the_context_and_both_values(tmp_path: Path) -> None:
    rows = [
        {"groundTruth": PARIS, "context": [PARIS]},
        {"groundTruth": "A.", "ground_truth": "B.", "context": ["A."]},
    ]
    assert _score(_jsonl(tmp_path / "data.jsonl", rows)).exit_code == 0
    refused = read_results(tmp_path / "out.jsonl")[1]
    assert refused.context == ["A."] and refused.ground_truth is None
    assert refused.metadata == {"groundTruth": "A.", "ground_truth": "B."}


def test_a_survey_of_a_good_file_reads_its_first_row_only(tmp_path: Path) -> None:
    rows = [{"groundTruth": PARIS, "context": [PARIS]}] * 3 + [{"context": "bad"}]
    dataset = open_dataset(_jsonl(tmp_path / "data.jsonl", rows))
    found = survey(dataset, [("ground_truth",), ("context",)])
    assert (found.read, found.scorable, found.refused) == (1, 1, ())
    whole = survey(dataset, [("input",)])  # no row holds one: every row read
    assert (whole.read, whole.scorable, len(whole.refused)) == (4, 3, 1)
    assert "input" not in whole.present


# A field a scorer reads that no row holds --------------------------------------------------


def test_a_question_column_among_mastra_names_is_the_input(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text(
        f'question,groundTruth,context,output\nWhere is Paris?,{PARIS},"[""{PARIS}""]",{PARIS}\n'
    )
    result = _score(data, "--scorer", RELEVANCE)
    assert result.exit_code == 0, result.output
    assert "Mastra field names: input=question, ground_truth=groundTruth" in result.output
    (record,) = read_results(tmp_path / "out.jsonl")
    assert record.input == "Where is Paris?" and record.metadata is None


@pytest.mark.parametrize(
    ("scorer", "row", "said"),
    [
        (
            RELEVANCE,
            {"q": "Where?", "output": PARIS, "context": [PARIS]},
            "no row has a question (input, offline-recall names), which context-relevance-scorer "
            "needs; "
            "name its column with --map input=COLUMN (fields: q, output, context)",
        ),
        (
            FAITHFULNESS,
            {"input": "Where?", "reply": PARIS, "context": [PARIS]},
            "no row has an output (output, offline-recall names), which faithfulness-scorer "
            "needs; "
            "name its column with --map output=COLUMN (fields: input, reply, context)",
        ),
        (
            RECALL,
            {"input": "Where?", "groundTruth": " ", "context": [PARIS]},
            "no row has a ground truth (groundTruth or ground_truth, Mastra names), which "
            "context-recall-scorer needs",
        ),
    ],
)
def test_a_field_a_scorer_reads_that_no_row_holds_is_refused_before_the_model(
    tmp_path: Path, no_model: list[object], scorer: str, row: dict[str, Any], said: str
) -> None:
    result = _score(_jsonl(tmp_path / "data.jsonl", [row, row]), "--scorer", scorer)
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: data.jsonl: {said}"), result.output
    assert no_model == []


def test_precision_is_not_refused_for_a_ground_truth_its_output_stands_in_for(
    tmp_path: Path,
) -> None:
    rows = [{"input": "Where?", "context": [PARIS], "output": PARIS, "groundTruth": None}]
    result = _score(_jsonl(tmp_path / "d.jsonl", rows), "--scorer", "context-precision-scorer")
    assert result.exit_code == 0, result.output


# A run that scored nothing -------------------------------------------------------------------


def test_a_scorer_that_failed_every_row_fails_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(self: FakeEngine, prompts: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        return [Failed("the engine broke")] * len(prompts)

    monkeypatch.setattr(FakeEngine, "answer_probabilities", failing)
    rows = [{"groundTruth": PARIS, "context": [PARIS]}] * 2
    result = _score(_jsonl(tmp_path / "data.jsonl", rows))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "failed: line 1: the engine broke" in lines
    assert lines[-1] == (
        "Error: every row failed for context-recall-scorer (2 of 2, status error): nothing was "
        "scored; the first reasons are above"
    )
    assert len(read_results(tmp_path / "out.jsonl")) == 2  # the records are written still


# Nothing left to score --------------------------------------------------------------------


def test_a_run_with_nothing_left_to_score_loads_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _jsonl(tmp_path / "data.jsonl", [{"groundTruth": PARIS, "context": [PARIS]}])
    assert _score(data).exit_code == 0
    scoring = importlib.import_module("offline_recall.runs.session")

    def start(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(scoring.Scoring, "start", start)
    result = _score(data)
    assert result.exit_code == 0, result.output
    assert "none is left to score" in result.output and "mean recall" in result.output


# Ctrl-C ------------------------------------------------------------------------------------


def test_ctrl_c_says_the_rows_kept_and_the_command_that_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [{"id": i, "groundTruth": PARIS, "context": [PARIS]} for i in range(20)]
    data = _jsonl(tmp_path / "my data.jsonl", rows)
    out = tmp_path / "out.jsonl"
    real = RunStore.add
    calls: list[int] = []

    def add(self: RunStore, records: Any) -> None:
        calls.append(1)
        if len(calls) == 2:  # the second window: Ctrl-C
            raise KeyboardInterrupt
        real(self, records)

    monkeypatch.setattr(RunStore, "add", add)
    argv = ["/venv/bin/offline-recall", "score", str(data), "--out", str(out), "--restart"]
    monkeypatch.setattr("sys.argv", argv)
    result = _score(data, "--restart")
    assert result.exit_code == 130
    lines = result.output.splitlines()
    assert "Aborted!" not in result.output
    assert lines[-2] == (
        f"interrupted: 16 of 20 rows are kept in the run store {out}.run.sqlite; the same "
        "command scores the other 4:"
    )
    assert lines[-1] == f"  /venv/bin/offline-recall score '{data}' --out {out}"
    monkeypatch.setattr(RunStore, "add", real)
    resumed = _score(data)
    assert "resuming: 16 of 20 rows are in the store" in resumed.output


def test_ctrl_c_before_any_row_is_kept_leaves_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def add(self: RunStore, records: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(RunStore, "add", add)
    data = _jsonl(tmp_path / "data.jsonl", [{"groundTruth": PARIS, "context": [PARIS]}])
    result = _score(data)
    assert result.exit_code == 130
    assert "interrupted before any row was kept; the same command starts again:" in result.output
    assert not tmp_path.joinpath("out.jsonl.run.sqlite").exists()


def test_the_resume_command_is_the_one_given_without_restart() -> None:
    assert resume_command(["/usr/lib/python3/x.py", "score", "a b.jsonl", "--restart"]) == (
        "offline-recall score 'a b.jsonl'"
    )
