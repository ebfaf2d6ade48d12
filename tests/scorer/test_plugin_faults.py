"""A plugin's code is run, never trusted: a score outside [0, scale] or not a number, a crash, an
exit, a KeyboardInterrupt of its own or a step that hangs is that row's error, and the other rows
are scored; a plugin that exits as it is imported is skipped, and the user's Ctrl-C still stops
the run.

The faulty plugin is the docs page's question-coverage plugin (tests/scorer/test_plugins.py)
with one fault, chosen by the environment variable `FAULT` (`STEP:WHAT`), on the rows whose question
holds `sky`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import FakeEngine
from offline_recall.cli import main
from offline_recall.errors import ConfigurationError
from offline_recall.scorer import SCORERS, ContextOptions, ScoreResult, create_scorer, scorer_kind
from offline_recall.scorer.guard import TIMEOUT_VARIABLE, step_seconds

from .test_plugins import BUILT_IN, GROUP, _entry_points, isolate_entry_points, rows, write_plugin

FAULTY = "faulty-scorer"
MODULE = '''
"""The question-coverage plugin with one fault on the rows whose question holds "sky"."""

import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

from question_coverage import QuestionCoverageScorer


def fault(step, question):
    at, _, what = os.environ.get("FAULT", "").partition(":")
    if at != step or "sky" not in question:
        return None
    if os.environ.get("FAULT_MARK"):
        Path(os.environ["FAULT_MARK"]).write_text(what)
    if what == "exit":
        sys.exit(3)
    if what == "interrupt":
        raise KeyboardInterrupt
    if what == "raise":
        raise RuntimeError("the plugin broke")
    if what == "hang":
        time.sleep(60)
    if what == "hang-on":  # catches the first alarm and hangs again
        try:
            time.sleep(60)
        except BaseException:
            time.sleep(60)
    if what == "ctrl-c":  # the user's Ctrl-C, as the terminal sends it
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(60)
    if what == "swallow":  # the user's Ctrl-C, caught by the plugin
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(60)
        except KeyboardInterrupt:
            pass
    return what


class FaultyScorer(QuestionCoverageScorer):
    id = "faulty-scorer"
    name = "Faulty Scorer"

    def question(self):
        fault("question", "the sky, as it is built")
        return super().question()

    def prepare(self, run):
        fault("prepare", str(run.input))
        return super().prepare(run)

    def generate(self, items):
        for item in items.values():
            fault("generate", item.question)
        return items

    def aggregate(self, item, assessed):
        what = fault("aggregate", item.question)
        result = super().aggregate(item, assessed)
        if what in ("nan", "inf", "5.0", "-3.0", "10.0", "0.34"):
            return result.model_copy(update={"score": float(what)})
        if what == "nan-probability":
            return result.model_copy(update={"probabilities": (math.nan,) * 2})
        if what == "nothing":
            return None
        return result
'''


def _dist_info(site: Path, name: str, points: dict[str, str]) -> None:
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in points.items())
    info.joinpath("entry_points.txt").write_text(f"[{GROUP}]\n{lines}")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The faulty plugin (and the docs page's plugin it builds on) importable, and registered
    under its id, in-process (where the plugins looked for are this folder's alone) and for a
    command in a process of its own."""
    site = tmp_path / "site"
    write_plugin(site)
    (site / "faulty_plugins").mkdir()
    (site / "faulty_plugins" / "__init__.py").write_text(MODULE)
    _dist_info(site, "faulty-plugins", {FAULTY: "faulty_plugins:FaultyScorer"})
    root = Path(__file__).resolve().parents[2]
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(root)]))
    monkeypatch.delenv("FAULT", raising=False)
    isolate_entry_points(monkeypatch, site)
    yield site
    SCORERS.reload()
    for name in [m for m in sys.modules if m.startswith(("question_coverage", "faulty_plugins"))]:
        del sys.modules[name]


def _scored(monkeypatch: pytest.MonkeyPatch, fault: str, scale: float = 1.0) -> list[ScoreResult]:
    """The faulty scorer's results on two runs (the sky's first) with `fault` set."""
    monkeypatch.setenv("FAULT", fault)
    context = ["The colour of the sky is blue.", "Shakespeare wrote Hamlet."]
    options = ContextOptions(context=context, scale=scale)
    scorer = create_scorer(scorer_kind(FAULTY), FakeEngine(), options)
    runs = [{"input": "What colour is the sky?"}, {"input": "Who wrote Hamlet?"}]
    return list(scorer.run_many(runs))


def _failed_with(found: list[ScoreResult], error: str) -> None:
    assert [r.status for r in found] == ["error", "ok"]
    assert found[0].score is None and found[0].error == error
    assert found[1].score == 0.5


# Numbers a plugin hands back ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("what", "said"),
    [
        ("5.0", "5.0"),
        ("-3.0", "-3.0"),
        ("nan", "nan"),
        ("inf", "inf"),
    ],
)
def test_a_score_that_is_not_a_number_from_0_to_the_scale_is_the_rows_error(
    site: Path, monkeypatch: pytest.MonkeyPatch, what: str, said: str
) -> None:
    found = _scored(monkeypatch, f"aggregate:{what}")
    _failed_with(found, f"the scorer gave the score {said}, not a number from 0 to 1")


def test_a_score_within_the_scale_stands_as_rounded(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _scored(monkeypatch, "aggregate:10.0", scale=10)[0].score == 10.0
    # 0.335 rounds as scores do, to 0.34: the scale as rounded is the top
    assert _scored(monkeypatch, "aggregate:0.34", scale=0.335)[0].score == 0.34


def test_a_result_holding_a_number_that_is_not_finite_is_the_rows_error(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _scored(monkeypatch, "aggregate:nan-probability")
    _failed_with(found, "the scorer's result holds a number that is not finite (probabilities)")


def test_a_result_that_is_not_the_scorers_result_type_is_the_rows_error(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _scored(monkeypatch, "aggregate:nothing")
    _failed_with(found, "the scorer gave a NoneType, not a CoverageResult")


def test_a_score_above_the_scale_no_longer_passes_the_gate(
    site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAULT", "aggregate:5.0")
    data, out = rows(tmp_path / "data.jsonl"), tmp_path / "r.jsonl"
    command = ["score", str(data), "--scorer", FAULTY, "--backend", "fake", "--out", str(out)]
    result = CliRunner().invoke(main, [*command, "--fail-under", "0.9"])
    assert result.exit_code == 1, result.output
    records = [json.loads(line)["results"][FAULTY] for line in out.read_text().splitlines()]
    assert [r["status"] for r in records] == ["error", "ok", "no_context"]
    assert records[0]["error"] == "the scorer gave the score 5.0, not a number from 0 to 1"


# A plugin's crash, exit, interrupt or hang -------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("aggregate:exit", "aggregate() exited (SystemExit: 3)"),
        ("aggregate:interrupt", "aggregate() raised KeyboardInterrupt"),
        ("aggregate:raise", "RuntimeError: the plugin broke"),
        ("prepare:exit", "prepare() exited (SystemExit: 3)"),
        ("prepare:interrupt", "prepare() raised KeyboardInterrupt"),
    ],
)
def test_a_step_that_exits_or_interrupts_itself_is_the_rows_error(
    site: Path, monkeypatch: pytest.MonkeyPatch, fault: str, error: str
) -> None:
    _failed_with(_scored(monkeypatch, fault), error)


def test_a_batch_stage_that_exits_is_the_error_of_the_run_that_makes_it_exit(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failed_with(_scored(monkeypatch, "generate:exit"), "generate() exited (SystemExit: 3)")


@pytest.mark.parametrize("what", ["hang", "hang-on"])
def test_a_step_past_its_time_limit_is_the_rows_error(
    site: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.5")
    started = time.monotonic()
    found = _scored(monkeypatch, f"aggregate:{what}")
    assert time.monotonic() - started < 10
    _failed_with(found, f"aggregate() took more than 0.5 s (the limit {TIMEOUT_VARIABLE} sets)")
    assert _scored(monkeypatch, "")[0].status == "ok"  # the alarm is off once the run is done
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_time_limit_is_60_seconds_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIMEOUT_VARIABLE, raising=False)
    assert step_seconds() == 60.0
    monkeypatch.setenv(TIMEOUT_VARIABLE, "2.5")
    assert step_seconds() == 2.5
    for wrong in ("0", "-1", "nan", "inf", "soon"):
        monkeypatch.setenv(TIMEOUT_VARIABLE, wrong)
        with pytest.raises(ConfigurationError, match=f"{TIMEOUT_VARIABLE}='{wrong}': give the"):
            step_seconds()


@pytest.fixture
def terminal_ctrl_c() -> Iterator[None]:
    """SIGINT as a process started from a terminal has it: Python's own handler, the signal
    not blocked. A library an earlier test loaded in this process (an engine, a cluster) may
    leave it ignored or blocked, which a child process inherits too."""
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, handler)


@pytest.mark.parametrize("what", ["ctrl-c", "swallow"])
@pytest.mark.usefixtures("terminal_ctrl_c")
def test_the_users_ctrl_c_inside_a_step_stops_the_run(
    site: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _scored(monkeypatch, f"aggregate:{what}")
    assert time.monotonic() - started < 10
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_keyboard_interrupt_outside_the_main_thread_is_the_codes_own(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No signal reaches a thread but the main one: a KeyboardInterrupt there is the code's."""
    found: list[list[ScoreResult]] = []
    thread = threading.Thread(
        target=lambda: found.append(_scored(monkeypatch, "aggregate:interrupt"))
    )
    thread.start()
    thread.join(60)
    _failed_with(found[0], "aggregate() raised KeyboardInterrupt")


@pytest.mark.usefixtures("terminal_ctrl_c")
def test_the_users_ctrl_c_stops_the_command_while_a_plugin_hangs(
    site: Path, tmp_path: Path
) -> None:
    """The command in a process of its own, sent SIGINT as a terminal sends it on Ctrl-C."""
    mark = tmp_path / "hanging"
    data, out = rows(tmp_path / "data.jsonl"), tmp_path / "r.jsonl"
    cli = Path(sys.executable).with_name("offline-recall")
    env = {**os.environ, "FAULT": "aggregate:hang", "FAULT_MARK": str(mark)}
    command = [str(cli), "score", str(data), "--scorer", FAULTY, "--backend", "fake"]
    process = subprocess.Popen(
        [*command, "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while not mark.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert mark.exists(), process.communicate(timeout=5)[0]
        process.send_signal(signal.SIGINT)
        shown, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 130, shown  # as a shell's interrupted command
    assert b"interrupted" in shown
    assert not out.exists()


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        ("question:exit", "question() exited (SystemExit: 3)"),
        ("question:interrupt", "question() raised KeyboardInterrupt"),
        ("question:raise", "RuntimeError: the plugin broke"),
    ],
)
def test_a_scorer_that_exits_as_it_is_built_is_one_line(
    site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fault: str, why: str
) -> None:
    monkeypatch.setenv("FAULT", fault)
    data, out = rows(tmp_path / "data.jsonl"), tmp_path / "r.jsonl"
    command = ["score", str(data), "--scorer", FAULTY, "--backend", "fake", "--out", str(out)]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1] == (
        f"Error: the scorer {FAULTY} cannot be built: {why}"
    )


# A plugin that breaks as it is imported ----------------------------------------------------


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("raise SystemExit(2)", "loading it exited (SystemExit: 2)"),
        ("import sys\nsys.exit('bye')", "loading it exited (SystemExit: bye)"),
        ("raise KeyboardInterrupt", "loading it raised KeyboardInterrupt"),
        ("raise ZeroDivisionError('x')", "ZeroDivisionError: x"),
    ],
)
def test_a_plugin_that_exits_as_it_is_imported_is_skipped_and_the_others_stay(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str, why: str
) -> None:
    (site / "exits_at_import.py").write_text(code + "\n")
    _entry_points(
        monkeypatch,
        ("aaa-scorer", "exits_at_import:Scorer"),
        (FAULTY, "faulty_plugins:FaultyScorer"),
    )
    listed = CliRunner().invoke(main, ["scorers"])
    assert listed.exit_code == 0, listed.output
    assert "'aaa-scorer'" in listed.output and why in listed.output
    assert all(sid in listed.output for sid in (*BUILT_IN, FAULTY))
    data, out = rows(tmp_path / "data.jsonl"), tmp_path / "r.jsonl"
    scored = CliRunner().invoke(
        main, ["score", str(data), "--scorer", FAULTY, "--backend", "fake", "--out", str(out)]
    )
    assert scored.exit_code == 0, scored.output
    records = [json.loads(line)["results"] for line in out.read_text().splitlines()]
    assert [r[FAULTY]["status"] for r in records] == ["ok", "ok", "no_context"]


def test_scorers_lists_every_scorer_when_a_plugin_exits_at_import_in_a_process_of_its_own(
    site: Path,
) -> None:
    (site / "exits_at_import.py").write_text("raise SystemExit(0)\n")
    _dist_info(site, "exits-at-import", {"aaa-scorer": "exits_at_import:Scorer"})
    cli = Path(sys.executable).with_name("offline-recall")
    done = subprocess.run(
        [str(cli), "scorers"], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(sid in done.stdout for sid in (*BUILT_IN, FAULTY))
    assert "loading it exited (SystemExit: 0)" in done.stdout + done.stderr
