"""The command line, on the fake engine."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.engines import ENGINES, EngineKind, FakeEngine

from ..conftest import EXAMPLE, recall


def score(tmp_path: Path, data: Path, *args: str) -> tuple[int, str, list[dict[str, object]]]:
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), *args]
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return result.exit_code, result.output, rows


def test_scores_the_example_and_prints_the_summary(tmp_path: Path) -> None:
    code, output, rows = score(tmp_path, EXAMPLE)
    assert code == 0, output
    assert "mean recall" in output and "items" in output
    assert [r["line"] for r in rows] == list(range(1, 13))
    assert all(recall(r)["status"] == "ok" for r in rows)
    assert rows[0]["id"] == "eiffel-full"


def test_malformed_lines_are_recorded_and_the_rest_scored(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        "\n".join(
            [
                '{"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}',
                "{oops",
                '{"groundTruth": "Paris is in France."}',
                '{"groundTruth": "Paris is in France.", "context": "Paris"}',
                '{"context": ["Paris"]}',
            ]
        )
    )
    code, output, rows = score(tmp_path, data)
    assert code == 0, output
    results = [recall(r) for r in rows]
    assert [r["status"] for r in results] == ["ok", "error", "error", "error", "no_ground_truth"]
    # The record names its line; the error is what is wrong with it.
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5]
    assert str(results[1]["error"]).startswith("not valid JSON: Expecting property name")
    assert str(results[2]["error"]).startswith("missing field 'context' (fields found: ")
    assert all(r["score"] is None for r in results[1:4])
    assert "failed" in output and "3" in output


@pytest.mark.parametrize(("threshold", "code"), [("0.1", 0), ("0.99", 1)])
def test_fail_under_gates_on_the_mean(tmp_path: Path, threshold: str, code: int) -> None:
    exit_code, output, _ = score(tmp_path, EXAMPLE, "--fail-under", threshold)
    assert exit_code == code, output
    if code:
        assert "under --fail-under 0.99" in output


def test_unknown_model_is_a_one_line_error(tmp_path: Path) -> None:
    code, output, _ = score(tmp_path, EXAMPLE, "--model", "nope")
    assert code == 1
    assert output.strip().splitlines()[-1].startswith("Error: unknown model 'nope'")


def test_engine_options_reach_the_engine_and_unknown_ones_are_refused(tmp_path: Path) -> None:
    code, output, _ = score(tmp_path, EXAMPLE, "--engine-option", "threads=4")
    assert code == 1
    assert "engine fake: option threads" in output.strip().splitlines()[-1]
    code, output, _ = score(tmp_path, EXAMPLE, "-o", "device")
    assert code == 1 and "expected KEY=VALUE" in output


def test_unknown_scorer_lists_the_known_ones(tmp_path: Path) -> None:
    code, output, _ = score(tmp_path, EXAMPLE, "--scorer", "faithfulness")
    assert code == 1
    assert "unknown scorer 'faithfulness'; known: context-recall-scorer" in output


class _Crashy(FakeEngine):
    def answer_probabilities(self, prompts, answers, done=None):  # type: ignore[no-untyped-def]
        if any("poison" in p.fields[-1].casefold() for p in prompts):
            raise RuntimeError("engine fault")
        return super().answer_probabilities(prompts, answers, done=done)


def test_an_item_that_crashes_the_engine_alone_in_its_window_is_its_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 17th item is alone in the second window of 16; its crash must not stop the run."""
    fake = ENGINES["fake"]
    crashy = EngineKind(
        "fake",
        fake.options_path,
        fake.window,
        lambda m, o: _Crashy(),
        fake.distributions,
        fake.fingerprint,
    )
    monkeypatch.setitem(ENGINES, "fake", crashy)
    data = tmp_path / "data.jsonl"
    good = {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}
    bad = {"groundTruth": "Poison is here.", "context": ["Paris is in France."]}
    data.write_text("".join(json.dumps(r) + "\n" for r in [good] * 16 + [bad]))
    code, output, rows = score(tmp_path, data)
    assert code == 0, output
    results = [recall(r) for r in rows]
    assert [r["status"] for r in results] == ["ok"] * 16 + ["error"]
    assert "engine fault" in str(results[-1]["error"])


def test_an_empty_input_is_refused_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "empty.jsonl"
    data.write_text("")
    code, output, _ = score(tmp_path, data, "--fail-under", "0.5")
    assert code == 1
    assert output.strip().splitlines() == ["Error: empty.jsonl holds no rows: nothing to score"]


THREE = [
    '{"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}',
    '{"groundTruth": "Rome is in Italy.", "context": ["Rome is in Italy."]}',
    "{oops",
]


def test_fail_under_fails_when_rows_failed_unless_allowed(tmp_path: Path) -> None:
    """A mean of 1.0 over the rows that scored does not pass a gate when a row failed."""
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(THREE) + "\n")
    code, output, _ = score(tmp_path, data, "--fail-under", "0.99")
    assert code == 1
    assert "1 row failed, more than --max-failed 0" in output.strip().splitlines()[-1]
    code, output, _ = score(tmp_path, data, "--fail-under", "0.99", "--max-failed", "1")
    assert code == 0, output
    assert score(tmp_path, data)[0] == 0  # no gate, no failure: the error is a row


def test_missing_ground_truths_are_said_in_the_summary(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(THREE[0] + '\n{"context": ["Paris."]}\n')
    code, output, _ = score(tmp_path, data)
    assert code == 0, output
    assert (
        "mean recall over 2 items, 1 without ground truth scored 0: 0.5000; "
        "mean over the 1 with one: 1.0000"
    ) in output


def test_a_resumed_run_says_so_and_the_profile_that_decides_is_named(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    code, output, _ = score(tmp_path, EXAMPLE)
    assert code == 0, output
    assert "context-recall-scorer: judge profile manifest threshold: P(yes) >= 0.5" in output
    with sqlite3.connect(out.with_name("results.jsonl.run.sqlite")) as db:
        db.execute("DELETE FROM results WHERE line > 5")
    code, output, _ = score(tmp_path, EXAMPLE)
    assert code == 0, output
    assert "resuming: 5 of 12 rows are in the store" in output


def test_progress_shows_the_stages_inside_a_window(tmp_path: Path) -> None:
    code, output, _ = score(tmp_path, EXAMPLE)
    assert code == 0, output
    assert "rows scored" in output and "recall: chunk checks" in output


def test_result_files_get_the_users_normal_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        code, output, _ = score(tmp_path, EXAMPLE)
    finally:
        os.umask(umask)
    assert code == 0, output
    assert stat.S_IMODE((tmp_path / "results.jsonl").stat().st_mode) == 0o644


@pytest.mark.model
def test_models_list_shows_the_embedded_model_verified() -> None:
    result = CliRunner().invoke(main, ["models", "list"])
    assert result.exit_code == 0, result.output
    assert "smollm2-135m-instruct" in result.output
    assert "verified" in result.output
    assert "context-recall-scorer: prompts v4, at most 12 per list" in result.output


def test_scorers_given_repeated_or_comma_separated_run_alike(tmp_path: Path) -> None:
    both = ("context-recall-scorer", "context-precision-scorer")
    found = []
    for args in (["--scorer", ",".join(both)], ["--scorer", both[0], "--scorer", both[1]]):
        out = tmp_path / f"results{len(found)}.jsonl"
        result = CliRunner().invoke(
            main, ["score", str(EXAMPLE), "--backend", "fake", *args, "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        found.append([sorted(json.loads(line)["results"]) for line in out.read_text().splitlines()])
    assert found[0] == found[1] == [sorted(both)] * 12
