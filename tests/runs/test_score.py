"""`offline_recall.score`, the one call that scores a dataset: a path, rows or a DataFrame give
the records `offline-recall score` writes for the same data, byte for byte; it resumes; a
broken row is recorded and the others scored; `to_pandas()` has one row per item."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from offline_recall import ConfigurationError, DatasetError, DatasetScores, Status, score
from offline_recall.cli import main
from offline_recall.runs.execute import Interrupted
from offline_recall.runs.results import as_json_line

from ..conftest import EXAMPLE

SCORERS = [
    "context-recall-scorer",
    "context-precision-scorer",
    "faithfulness-scorer",
    "context-relevance-scorer",
]


@pytest.fixture
def rows() -> list[dict[str, Any]]:
    """The example's rows, each with its ground truth as the output too, so that every
    scorer reads one."""
    found = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    return [{**row, "output": row["groundTruth"]} for row in found]


@pytest.fixture
def data(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _cli_lines(data: Path, out: Path) -> list[str]:
    args = ["score", str(data), "--backend", "fake", "--scorer", ",".join(SCORERS)]
    result = CliRunner().invoke(main, [*args, "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8").splitlines()


def _lines(scores: DatasetScores) -> list[str]:
    return [as_json_line(r) for r in scores]


def test_a_path_rows_and_a_dataframe_score_as_the_command_line_does(
    tmp_path: Path, data: Path, rows: list[dict[str, Any]]
) -> None:
    expected = _cli_lines(data, tmp_path / "cli.jsonl")
    assert len(expected) == 12
    by_path = score(data, scorers=SCORERS, backend="fake", cache=False)
    by_rows = score(rows, scorers=SCORERS, backend="fake", cache=False)
    by_frame = score(pd.DataFrame(rows), scorers=SCORERS, backend="fake", cache=False)
    for found in (by_path, by_rows, by_frame):
        assert _lines(found) == expected
        assert len(found) == 12 and found.out is None and found.store is None
    # Written to a file, the results are the command line's byte for byte.
    out = tmp_path / "py.jsonl"
    written = score(str(data), scorers=SCORERS, backend="fake", cache=False, out=out)
    assert out.read_text(encoding="utf-8").splitlines() == expected
    assert written.manifest_path == tmp_path / "py.jsonl.manifest.json"
    assert written.manifest_path.is_file()
    assert written.store == tmp_path / "py.jsonl.run.sqlite"
    assert _lines(written) == expected  # read back from the run store
    cli = json.loads((tmp_path / "cli.jsonl.manifest.json").read_text())
    assert written.manifest.model_dump(mode="json")["spec"] == cli["spec"]
    assert written.summaries.keys() == set(SCORERS)
    assert written.mean("context-recall-scorer") == pytest.approx(0.5692, abs=1e-4)


def test_rows_given_in_memory_are_kept_beside_the_results(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    out = tmp_path / "rows.jsonl"
    found = score(rows, backend="fake", cache=False, out=out)
    kept = tmp_path / "rows.jsonl.input.jsonl"
    assert [json.loads(line) for line in kept.read_text().splitlines()] == rows
    assert found.manifest.input.path == str(kept.resolve())
    # The same rows are the same input: the run is resumed, nothing scored again.
    again = score(rows, backend="fake", cache=False, out=out)
    assert _lines(again) == _lines(found)


@contextmanager
def _stopping_after(rows: int) -> Iterator[Any]:
    """A progress that stops the run (as Ctrl-C does) once `rows` rows are committed."""

    class Stop:
        def begin(self, total: int, done: int) -> None: ...

        def window(self, rows: int) -> None: ...

        def stage(self, scorer: str, stage: str, done: int, total: int) -> None: ...

        def rows(self, done: int) -> None:
            if done >= rows:
                raise KeyboardInterrupt

    yield Stop()


def test_an_interrupted_run_resumes_where_it_stopped(
    tmp_path: Path, rows: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    many = [{**r, "id": f"{r['id']}-{k}"} for k in range(4) for r in rows]  # 48 rows, 3 windows
    straight = score(many, backend="fake", cache=False, out=tmp_path / "straight.jsonl")
    out = tmp_path / "stopped.jsonl"
    with pytest.raises(Interrupted) as stopped:
        score(many, backend="fake", cache=False, out=out, progress=lambda *_: _stopping_after(16))
    assert (stopped.value.kept, stopped.value.total) == (16, 48)
    told: list[tuple[int, int]] = []

    @contextmanager
    def counting(total: int, done: int) -> Iterator[Any]:
        told.append((total, done))
        with _stopping_after(10**9) as progress:
            yield progress

    resumed = score(many, backend="fake", cache=False, out=out, progress=counting)
    assert told == [(48, 16)]
    assert _lines(resumed) == _lines(straight)
    assert out.read_bytes() == (tmp_path / "straight.jsonl").read_bytes()
    # Every row held: no model is started again; resume=False scores them all again.
    session = importlib.import_module("offline_recall.runs.session")
    started: list[object] = []
    real = session.Scoring.start
    monkeypatch.setattr(
        session.Scoring, "start", lambda *a, **k: started.append(a) or real(*a, **k)
    )
    assert _lines(score(many, backend="fake", cache=False, out=out)) == _lines(straight)
    assert started == []
    assert _lines(score(many, backend="fake", cache=False, out=out, resume=False)) == _lines(
        straight
    )
    assert len(started) == 1


def test_a_broken_row_is_recorded_and_the_others_are_scored(rows: list[dict[str, Any]]) -> None:
    given: list[Any] = [*rows[:2], "not a row", {**rows[2], "context": "one string"}, *rows[3:]]
    found = score(given, scorers=SCORERS[:2], backend="fake", cache=False)
    records = list(found)
    assert [r.line for r in records] == list(range(1, 14))
    broken = {r.line: r for r in records if r.line in (3, 4)}
    for record in broken.values():
        assert {r.status for r in record.results.values()} == {Status.ERROR}
        assert all(r.score is None for r in record.results.values())
    assert broken[4].results[SCORERS[0]].error == "'context' must be a list of strings"
    assert [r.line for r in found.failed] == [3, 4]
    for sid in SCORERS[:2]:
        summary = found.summaries[sid]
        assert (summary.items, summary.failed, summary.scored) == (13, 2, 11)
    clean = score([*rows[:2], *rows[3:]], scorers=SCORERS[:2], backend="fake", cache=False)
    for sid in SCORERS[:2]:  # failures are counted, never averaged in
        assert found.mean(sid) == clean.mean(sid)


def test_to_pandas_has_one_row_per_item_and_each_scorers_columns(
    rows: list[dict[str, Any]],
) -> None:
    given: list[Any] = [*rows[:3], "not a row"]
    frame = score(given, scorers=SCORERS[:2], backend="fake", cache=False).to_pandas()
    assert list(frame.columns) == [
        "line", "id", "input", "output", "ground_truth", "context", "metadata",
        "context-recall-scorer", "context-recall-scorer.status",
        "context-recall-scorer.reason", "context-recall-scorer.error",
        "context-precision-scorer", "context-precision-scorer.status",
        "context-precision-scorer.reason", "context-precision-scorer.error",
    ]  # fmt: skip
    assert frame["line"].tolist() == [1, 2, 3, 4]
    assert frame["id"].tolist()[:3] == [r["id"] for r in rows[:3]]
    assert str(frame["context-recall-scorer"].dtype) == "Float64"
    assert frame["context-recall-scorer"].tolist()[:3] == [1.0, 0.5, 0.0]
    assert frame["context-recall-scorer"].isna().tolist() == [False, False, False, True]
    assert frame["context-recall-scorer.status"].tolist() == ["ok", "ok", "ok", "error"]
    assert frame["context-recall-scorer.error"].tolist()[3] == "expected a JSON object"


def test_what_cannot_be_scored_is_refused_before_any_model(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no rows given"):
        score([], backend="fake")
    with pytest.raises(DatasetError, match="none of its 2 rows can be scored"):
        score(["a", "b"], backend="fake")
    with pytest.raises(ConfigurationError, match=r"no-such-scorer"):
        score([{"groundTruth": "x", "context": ["x"]}], scorers="no-such-scorer")
    with pytest.raises(ConfigurationError, match="need runner='ray'"):
        score(EXAMPLE, backend="fake", merge=False)
    with pytest.raises(ConfigurationError, match="a file's path, a list of rows"):
        score(42, backend="fake")  # type: ignore[arg-type]
    with pytest.raises(DatasetError, match="unknown field"):
        score(EXAMPLE, backend="fake", map={"answer": "x"})


@pytest.mark.model
def test_on_the_embedded_model_score_is_the_command(tmp_path: Path) -> None:
    out = tmp_path / "cli.jsonl"
    result = CliRunner().invoke(main, ["score", str(EXAMPLE), "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    found = score(EXAMPLE, cache=False)
    assert _lines(found) == out.read_text(encoding="utf-8").splitlines()
    cli = json.loads((tmp_path / "cli.jsonl.manifest.json").read_text())
    assert found.manifest.model_dump(mode="json")["spec"] == cli["spec"]
    mean = found.mean()
    assert mean is not None and re.search(rf"mean recall\W+{mean:.4f} ", result.output)
