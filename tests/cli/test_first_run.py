"""What a new user meets on a first run over their own file: a ground truth under a name not
read is refused before any model work, failed rows' reasons are on the screen, RAGAS's older
names are read, fields no scorer reads travel into the record, and the messages that were
already good stay so."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from offline_recall import ContextRecallOptions, FakeEngine, Status, create_context_recall_scorer
from offline_recall.cli import main
from offline_recall.data.dataset import Row, open_dataset
from offline_recall.runs.evals import ItemResult, run_evals
from offline_recall.runs.results import read_results
from offline_recall.scorer import SCORERS
from offline_recall.scorer.inputs import as_input

from ..conftest import RECALL

FAITHFULNESS = "faithfulness-scorer"
PARIS = "Paris is in France."


def _write(path: Path, rows: list[dict[str, Any]], *raw: str) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "".join(f"{r}\n" for r in raw))
    return path


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("out.jsonl")
    return CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache", *args]
    )


# (1) A ground truth no row has is refused before any model work.


@pytest.fixture
def misspelled(tmp_path: Path) -> Path:
    rows = [
        {"id": f"q{i}", "input": "Where?", "groundtruth": PARIS, "context": [PARIS]}
        for i in range(3)
    ]
    return _write(tmp_path / "hr.jsonl", rows)


def test_no_ground_truth_in_any_row_is_one_line_naming_the_fields_and_map(
    misspelled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    resolve = importlib.import_module("offline_recall.runs.resolve")
    monkeypatch.setattr(resolve, "resolve_run", lambda *a, **k: built.append(a))
    result = _score(misspelled)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: hr.jsonl: no row has a ground truth (ground_truth or groundTruth, offline-recall "
        "names), which context-recall-scorer needs; did you mean ground_truth (the column "
        "groundtruth)? read it with --map ground_truth=groundtruth (fields: id, input, "
        "groundtruth, context)"
    ]
    assert built == []  # refused before the model and its engine were resolved
    assert not misspelled.with_name("out.jsonl").exists()


def test_the_column_named_with_map_is_then_scored(misspelled: Path) -> None:
    result = _score(misspelled, "--map", "ground_truth=groundtruth")
    assert result.exit_code == 0, result.output
    records = read_results(misspelled.with_name("out.jsonl"))
    assert [r.result(RECALL).status for r in records] == [Status.OK] * 3


def test_a_csv_without_a_ground_truth_column_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text('input,context\nq,"[""c""]"\n')
    result = _score(data, "--scorer", "context-precision-scorer")
    assert result.exit_code == 1
    assert "which context-precision-scorer needs" in result.output
    assert "--map ground_truth=COLUMN (fields: input, context)" in result.output


def test_faithfulness_reads_no_ground_truth_and_is_not_refused(misspelled: Path) -> None:
    rows = [{"context": [PARIS], "output": PARIS, "groundtruth": "unread"}]
    data = _write(misspelled, rows)
    result = _score(data, "--scorer", FAITHFULNESS)
    assert result.exit_code == 0, result.output
    (record,) = read_results(data.with_name("out.jsonl"))
    assert record.result(FAITHFULNESS).status is Status.OK


def test_precision_judges_against_the_output_when_there_is_no_ground_truth(
    tmp_path: Path,
) -> None:
    rows = [{"input": "Where?", "context": [PARIS], "output": PARIS}]
    result = _score(_write(tmp_path / "d.jsonl", rows), "--scorer", "context-precision-scorer")
    assert result.exit_code == 0, result.output


def test_rows_of_another_convention_with_a_ground_truth_are_not_refused(tmp_path: Path) -> None:
    rows = [
        {"input": "q", "context": [PARIS]},
        {"user_input": "q", "reference": PARIS, "retrieved_contexts": [PARIS]},
    ]
    result = _score(_write(tmp_path / "mixed.jsonl", rows))
    assert result.exit_code == 0, result.output


def test_some_rows_without_a_ground_truth_are_counted_in_the_summary(tmp_path: Path) -> None:
    rows = [
        {"ground_truth": PARIS, "context": [PARIS]},
        {"context": [PARIS]},
        {"context": [PARIS]},
    ]
    result = _score(_write(tmp_path / "some.jsonl", rows))
    assert result.exit_code == 0, result.output
    assert "mean recall over 3 items, 2 without ground truth scored 0" in result.output
    cells = [
        [c.strip() for c in line.split("│")[1:3]]
        for line in result.output.splitlines()
        if "│ no ground truth" in line
    ]
    assert cells == [["no ground truth", "2"]]


# (2) The first failed rows, with their line, id and reason, under the summary.


def test_the_first_failed_rows_are_shown_with_line_id_and_reason(tmp_path: Path) -> None:
    good = {"id": "ok", "ground_truth": PARIS, "context": [PARIS]}
    bad = [{"id": f"bad{i}", "ground_truth": PARIS, "context": "one string"} for i in range(6)]
    data = _write(tmp_path / "data.jsonl", [good, *bad], '{"id": "x", "context": [1,],}')
    result = _score(data)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    shown = [line for line in lines if line.startswith("failed: ")]
    assert shown == [
        f"failed: line {n} (id bad{n - 2}): 'context' must be a list of strings"
        for n in range(2, 7)
    ]
    rest = lines[lines.index(shown[-1]) + 1]
    assert rest == f"the other failed rows are in {data.with_name('out.jsonl')} (status error)"
    assert lines.index(shown[0]) > max(i for i, t in enumerate(lines) if "prompt version" in t)


def test_a_broken_line_shows_what_the_parser_saw(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.jsonl", [{"ground_truth": PARIS, "context": [PARIS]}], "],}")
    result = _score(data)
    (shown,) = [line for line in result.output.splitlines() if line.startswith("failed: ")]
    assert shown.startswith("failed: line 2: not valid JSON: ")
    assert "their records are in" in result.output


def test_failed_rows_of_a_csv_are_named_by_row(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text('id,ground_truth,context\na,A.,"[""A.""]"\nb,B.,"[1, 2]"\n')
    result = _score(data)
    assert "failed: row 2 (id b): 'context' is not a JSON list of strings" in result.output


def test_no_failed_row_prints_no_failed_lines(tmp_path: Path) -> None:
    result = _score(_write(tmp_path / "d.jsonl", [{"ground_truth": PARIS, "context": [PARIS]}]))
    assert result.exit_code == 0, result.output
    assert "failed: " not in result.output and "failed rows" not in result.output


# (3) RAGAS's older names, row by row.

LEGACY = {
    "question": "Where is Paris?",
    "answer": "In France.",
    "contexts": [PARIS],
    "ground_truths": [PARIS, "It is the capital."],
}


def test_ragas_older_names_are_read_and_ground_truths_are_joined_by_newlines(
    tmp_path: Path,
) -> None:
    data = _write(tmp_path / "old.jsonl", [LEGACY])
    dataset = open_dataset(data)
    assert dataset.detection.describe() == (
        "JSON Lines, RAGAS field names: input=question, ground_truth=ground_truths, "
        "context=contexts, output=answer"
    )
    (row,) = dataset.rows()
    assert isinstance(row, Row)
    assert (row.input, row.output, row.context) == ("Where is Paris?", "In France.", [PARIS])
    assert row.ground_truth == f"{PARIS}\nIt is the capital."


def test_ragas_older_ground_truth_is_read_and_scored(tmp_path: Path) -> None:
    old = {"question": "q", "contexts": [PARIS], "ground_truth": PARIS}
    result = _score(_write(tmp_path / "old.jsonl", [old]))
    assert result.exit_code == 0, result.output
    (record,) = read_results(tmp_path / "out.jsonl")
    assert (record.input, record.ground_truth) == ("q", PARIS)
    assert record.result(RECALL).status is Status.OK


def test_ragas_older_rows_after_mastra_rows_are_read_by_their_own_names(tmp_path: Path) -> None:
    mastra = {"input": "q", "groundTruth": PARIS, "context": [PARIS]}
    data = _write(tmp_path / "mixed.jsonl", [mastra, mastra, LEGACY])
    rows = list(open_dataset(data).rows())
    assert all(isinstance(r, Row) for r in rows)
    assert isinstance(rows[2], Row) and rows[2].context == [PARIS]
    assert rows[2].ground_truth == f"{PARIS}\nIt is the capital."


# (4) One rule for fields no scorer reads: carried through as metadata, on every path.


def test_the_cli_carries_fields_no_scorer_reads_into_the_record(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "ground_truth": PARIS, "context": [PARIS], "kind": "policy", "n": 3},
        {"id": "b", "ground_truth": PARIS, "context": [PARIS]},
    ]
    data = _write(tmp_path / "data.jsonl", rows)
    assert _score(data).exit_code == 0
    first, second = read_results(tmp_path / "out.jsonl")
    assert first.metadata == {"kind": "policy", "n": 3}
    assert second.metadata is None
    assert "metadata" not in json.loads((tmp_path / "out.jsonl").read_text().splitlines()[1])
    parquet = tmp_path / "out.parquet"
    CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(parquet)])
    assert [r.metadata for r in read_results(parquet)] == [{"kind": "policy", "n": 3}, None]


def test_run_evals_carries_an_items_other_keys_as_metadata() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=[PARIS]))
    seen: list[ItemResult] = []
    item = {"input": "q", "groundTruth": PARIS, "kind": "policy", "metadata": {"team": "hr"}}
    result = run_evals([item], [scorer], target=lambda q: "x", on_item_complete=seen.append)
    assert result.scores[RECALL] == 1.0
    assert seen[0].metadata == {"kind": "policy", "metadata": {"team": "hr"}}


def test_scorer_run_scores_a_run_with_other_keys_and_keeps_them() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=[PARIS]))
    run = {"groundTruth": PARIS, "kind": "policy"}
    assert scorer.run(run).status is Status.OK
    assert as_input(run).metadata == {"kind": "policy"}


@pytest.mark.filterwarnings("ignore::offline_recall.scorer.inputs.ContextWarning")
def test_every_path_reads_ragas_names_as_the_command_line_does() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=["Rome."]))
    ragas = {"user_input": "q", "reference": PARIS, "retrieved_contexts": [PARIS]}
    assert scorer.run(ragas).score == 1.0
    assert scorer.run(LEGACY).score == 0.5  # the second ground truth is not in the context
    assert run_evals([ragas], [scorer], target=lambda q: "x").scores[RECALL] == 1.0


def test_one_field_under_two_names_is_refused_on_every_path() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=[PARIS]))
    both = {"context": [PARIS], "contexts": [PARIS], "groundTruth": PARIS}
    result = scorer.run(both)
    assert result.status is Status.ERROR
    assert result.error is not None
    assert result.error.endswith("both 'context' and 'contexts' given for the context; give one")
    with pytest.raises(ValueError, match="item 0: both 'context' and 'contexts' given"):
        run_evals([both], [scorer], target=lambda q: "x")


# (8) Messages that were good stay so.


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    result = _score(tmp_path / "nothere.jsonl")
    assert result.exit_code == 2
    assert "File '" in result.output and "nothere.jsonl' does not exist." in result.output


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    result = _score(tmp_path / "empty.jsonl")
    assert result.output.strip() == "Error: empty.jsonl holds no rows: nothing to score"


def test_an_unknown_scorer_lists_the_known_ones(misspelled: Path) -> None:
    """The built-in ones, whatever plugins the environment the tests run in holds besides."""
    result = _score(misspelled, "--scorer", "context-faithfulness-scorer")
    said, _, known = result.output.strip().splitlines()[-1].partition("; known: ")
    assert said == "Error: unknown scorer 'context-faithfulness-scorer'"
    assert [k for k in known.split(", ") if k in SCORERS.builtin_paths] == [
        "context-recall-scorer",
        "context-precision-scorer",
        "faithfulness-scorer",
        "context-relevance-scorer",
    ]


def test_several_scorers_need_a_gate_each(misspelled: Path) -> None:
    result = _score(misspelled, "--scorer", f"{RECALL},{FAITHFULNESS}", "--fail-under", "0.5")
    assert result.output.strip().splitlines()[-1] == (
        f"Error: --fail-under 0.5: several scorers run; give SCORER=0.5 (scorers: {RECALL}, "
        f"{FAITHFULNESS})"
    )


def test_a_gate_on_faithfulness_and_failed_rows_under_a_gate(tmp_path: Path) -> None:
    rows = [{"context": [PARIS], "output": PARIS}]
    data = _write(tmp_path / "data.jsonl", rows, "{broken")
    gate = ("--scorer", FAITHFULNESS, "--fail-under", "0.5")
    result = _score(data, *gate)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        "Error: 1 row failed, more than --max-failed 0; their errors are in the results "
        "(status error)"
    )
    assert _score(data, *gate, "--max-failed", "1").exit_code == 0
    unsupported = _write(tmp_path / "low.jsonl", [{"context": [PARIS], "output": "Rome is old."}])
    low = _score(unsupported, *gate, "--restart")
    assert low.exit_code == 1
    assert low.output.strip().splitlines()[-1] == (
        "Error: mean faithfulness 0.0000 is under --fail-under 0.5 (faithfulness-scorer)"
    )
