"""The progress a run shows: a live bar on a terminal, plain lines in a pipe or a CI log."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from offline_recall.cli import main, progress
from offline_recall.cli.progress import RunBar

from ..conftest import EXAMPLE, RECALL


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


def test_a_pipe_gets_a_plain_line_at_the_start_then_now_and_then_and_at_the_end() -> None:
    console, out = piped()
    clock = Clock()
    with RunBar(console, 40, every=10, clock=clock) as bar:
        bar.begin(40, 0)
        bar.window(16)
        for done in range(1, 31):
            clock.now += 1
            bar.stage(RECALL, "sentences extracted", done, 30)
        bar.rows(16)
    lines = out.getvalue().splitlines()
    assert lines == [
        "rows scored 0/40, loading the model, 0 s",
        "rows scored 0/40, estimating, recall: sentences extracted 10/30, 10 s",
        "rows scored 0/40, estimating, recall: sentences extracted 20/30, 20 s",
        "rows scored 0/40, estimating, recall: sentences extracted 30/30, 30 s",
        "rows scored 16/40, 0.53 rows/s, about 45 s left, recall: sentences extracted 30/30, 30 s",
    ]


def test_a_pipe_shows_the_pace_and_the_time_left_counting_down_between_commits() -> None:
    """Measured from when scoring begins (the model loaded), over the rows scored this run."""
    console, out = piped()
    clock = Clock()
    with RunBar(console, 200, every=10, clock=clock) as bar:
        clock.now = 50.0  # loading the model: not part of the pace
        bar.begin(200, 40)  # 40 rows were in the store already
        clock.now = 90.0
        bar.rows(80)  # 40 rows in 40 s: 1 row/s, 120 rows left
        clock.now = 130.0
        bar.stage(RECALL, "verdicts judged", 3, 10)
    lines = out.getvalue().splitlines()  # the last line said at the exit: never said twice
    assert "rows scored 80/200, 1.0 rows/s, about 2 min left, " in lines[-2]
    assert lines[-1].startswith("rows scored 80/200, 1.0 rows/s, about 80 s left, recall")


def test_a_terminal_shows_the_pace_and_the_time_left() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=160, record=True)
    clock = Clock()
    with RunBar(console, 40, clock=clock) as bar:
        bar.begin(40, 0)
        clock.now = 8.0
        bar.rows(16)
    shown = console.export_text()
    assert "2.0 rows/s, about 12 s left" in shown


@pytest.mark.parametrize(
    ("seconds", "said"), [(45, "45 s"), (89, "89 s"), (600, "10 min"), (7500, "2 h 05 min")]
)
def test_a_time_left_reads_as_a_person_says_it(seconds: float, said: str) -> None:
    assert progress.duration(seconds) == said


def test_a_terminal_shows_the_model_loading_before_any_stage() -> None:
    """The line under the rows is there from the start: the first seconds are not blank."""
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    with RunBar(console, 12):
        pass
    assert "loading the model" in console.export_text()


def test_a_terminal_names_the_rows_of_the_window_in_progress() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    with RunBar(console, 40) as bar:
        bar.begin(40, 16)
        bar.window(16)
        bar.stage(RECALL, "verdicts judged", 5, 24)
    shown = console.export_text()
    assert "recall: chunk checks (rows 17-32)" in shown and "5/24" in shown
    assert "16/40" in shown


def test_a_piped_run_prints_rows_as_windows_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "EVERY", 0.0)
    data = tmp_path / "data.jsonl"
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    data.write_text("".join(json.dumps(r) + "\n" for r in (rows * 2)[:20]))
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    assert "rows scored 0/20, loading the model" in result.output
    assert re.search(r"rows scored 16/20, [\d.]+ rows/s, about .* left, recall", result.output)
    assert re.search(r"rows scored 20/20, [\d.]+ rows/s, recall: chunk checks", result.output)


def test_verify_shows_its_progress(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    scored = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--out", str(out), "--no-cache"]
    )
    assert scored.exit_code == 0, scored.output
    result = CliRunner().invoke(main, ["verify", str(out), "--sample", "5"])
    assert result.exit_code == 0, result.output
    assert "rows re-scored 0/5, loading the model" in result.output
    assert re.search(r"rows re-scored 5/5, [\d.]+ rows/s, recall: chunk checks", result.output)


def test_a_pipe_gets_a_line_every_few_seconds_while_one_long_step_gives_no_news() -> None:
    """Loading a model or compiling a grammar can take minutes without a single event."""
    console, out = piped()
    with RunBar(console, 12, every=0.05):
        time.sleep(0.4)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 4, lines
    assert all(line.startswith("rows scored 0/12, loading the model") for line in lines)


def test_a_ray_run_in_a_pipe_prints_rows_as_shards_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    from offline_recall.cli.ray_run import ShardBar

    monkeypatch.setattr(progress, "EVERY", 0.0)
    console, out = piped()
    with ShardBar(console, 20, 4) as bar:
        bar.shard(8)
        bar.shard(8)
    lines = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "rows scored 4/20",
        "rows scored 12/20",
        "rows scored 20/20",
        "rows scored 20/20",
    ]
    assert "rows/s" in lines[-1]
    assert "left" in lines[1]  # 12 of 20 rows: the other 8 take about as long again


def test_a_resumed_run_counts_the_rows_it_holds_from_its_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    monkeypatch.setattr(progress, "EVERY", 0.0)
    out = tmp_path / "r.jsonl"
    command = ["score", str(EXAMPLE), "--backend", "fake", "--out", str(out), "--no-cache"]
    first = CliRunner().invoke(main, command)
    assert first.exit_code == 0, first.output
    with sqlite3.connect(f"{out}.run.sqlite") as db:
        db.execute("DELETE FROM results WHERE line > 9")
    resumed = CliRunner().invoke(main, command)
    assert resumed.exit_code == 0, resumed.output
    lines = [line for line in resumed.output.splitlines() if line.startswith("rows scored")]
    assert lines[0].startswith("rows scored 9/12, loading the model"), lines
    assert "rows scored 0/12" not in resumed.output
    assert lines[-1].startswith("rows scored 12/12")


def test_a_bar_told_the_rows_done_shows_them_first() -> None:
    console, out = piped()
    with RunBar(console, 40, done=25):
        pass
    assert out.getvalue().splitlines()[0].startswith("rows scored 25/40, loading the model")


def test_the_time_left_is_never_0_s_while_verdicts_stall() -> None:
    """Three chunk checks counted at once (taking no time), then none for 20 s: the pace they
    gave is disproved, so the time left is being estimated, never `about 0 s left`."""
    console, _ = piped()
    clock = Clock()
    with RunBar(console, 16, every=10, clock=clock) as bar:
        bar.begin(16, 0)
        bar.window(16)
        bar.stage(RECALL, "verdicts judged", 0, 25)
        clock.now = 0.001
        bar.stage(RECALL, "verdicts judged", 3, 25)
        clock.now = 20.0
        assert bar.pace() == "estimating"


def test_a_window_slower_than_the_rows_before_it_is_estimating_never_0_s() -> None:
    console, _ = piped()
    clock = Clock()
    with RunBar(console, 32, every=10, clock=clock) as bar:
        bar.begin(32, 0)
        bar.window(16)
        clock.now = 16.0
        bar.rows(16)  # 1 row/s: 16 s left
        bar.window(16)
        clock.now = 20.0
        assert bar.pace() == "1.0 rows/s, about 12 s left"
        clock.now = 40.0  # the second window takes longer than 16 s
        assert bar.pace() == "1.0 rows/s, estimating"


def test_the_pace_is_measured_from_the_first_work_not_the_models_load() -> None:
    """`verify` tells the rows before the model loads: the load is not part of the rate."""
    console, _ = piped()
    clock = Clock()
    with RunBar(console, 20, every=10, clock=clock) as bar:
        bar.begin(20, 0)
        clock.now = 30.0  # the model loaded
        bar.window(10)
        clock.now = 40.0
        bar.rows(10)
        assert bar.pace() == "1.0 rows/s, about 10 s left"
        assert bar.scoring() == (10, 10.0)


def test_the_time_left_of_a_first_window_counts_its_claim_lists() -> None:
    """Claim lists took 30 s of the window, then 2 of 4 chunk checks 10 s: the window takes
    50 s, not the 20 s of its checks alone; the 16 rows after it 50 s more."""
    console, _ = piped()
    clock = Clock()
    with RunBar(console, 32, every=10, clock=clock) as bar:
        bar.begin(32, 0)
        bar.window(16)
        bar.stage(RECALL, "ground truths extracted", 0, 16)
        clock.now = 30.0
        bar.stage(RECALL, "ground truths extracted", 16, 16)
        bar.stage(RECALL, "verdicts judged", 0, 4)
        clock.now = 40.0
        bar.stage(RECALL, "verdicts judged", 2, 4)
        assert bar.pace() == "about 60 s left"  # 10 s of checks, then 16 rows at 50 s


def test_the_summary_gives_the_rate_over_the_scoring_time(tmp_path: Path) -> None:
    """The rows per second are read against the seconds they were measured over, not the
    command's time (which holds the model's load)."""
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    found = re.search(
        r"\nscored 12 rows in ([\d.]+) s \([\d.]+ rows/s\); ([\d.]+) s in all, with the "
        r"model's load\n",
        result.output,
    )
    assert found is not None, result.output
    assert float(found[1]) <= float(found[2])
