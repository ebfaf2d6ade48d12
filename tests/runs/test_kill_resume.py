"""A real process killed with SIGKILL mid-run, then rerun: every row once, output unchanged."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

DRIVER = """
import dataclasses, sys, time
from offline_recall import FakeEngine
from offline_recall.engines import ENGINES
from offline_recall.cli import main

class Slow(FakeEngine):
    def answer_probabilities(self, prompts, answers, done=None):
        time.sleep(0.05)
        return super().answer_probabilities(prompts, answers, done=done)

ENGINES["fake"] = dataclasses.replace(
    ENGINES["fake"], factory=lambda manifest, options: Slow(prompt_version="v3", record_calls=False)
)
main(sys.argv[1:], prog_name="offline-recall")
"""

ROWS = 400


def _dataset(path: Path) -> None:
    lines = []
    for i in range(ROWS):
        truth = f"Item {i} is red. Item {i} weighs {i} grams. It was made in {1900 + i}."
        context = [f"Item {i} is red and weighs {i} grams.", f"Unrelated text number {i}."]
        lines.append(json.dumps({"id": f"row-{i}", "groundTruth": truth, "context": context}))
    path.write_text("\n".join(lines) + "\n")


def _score(driver: Path, data: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "OFFLINE_RECALL_CACHE": str(out.parent / "cache")}
    command = [sys.executable, str(driver), "score", str(data), "--backend", "fake"]
    return subprocess.Popen(
        [*command, "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_run_resumes_without_losing_or_repeating_a_row(tmp_path: Path) -> None:
    driver, data = tmp_path / "driver.py", tmp_path / "data.jsonl"
    driver.write_text(DRIVER)
    _dataset(data)
    (tmp_path / "killed").mkdir()
    (tmp_path / "whole").mkdir()
    out, reference = tmp_path / "killed" / "r.jsonl", tmp_path / "whole" / "r.jsonl"
    store = out.with_name("r.jsonl.run.sqlite")

    process = _score(driver, data, out)
    deadline = time.monotonic() + 120
    while _stored(store) < ROWS // 4 and time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it could be killed"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    stored = _stored(store)
    assert 0 < stored < ROWS, stored
    assert not out.exists(), "an interrupted run must not leave an output that looks complete"

    assert _score(driver, data, out).wait(timeout=300) == 0
    assert _score(driver, data, reference).wait(timeout=300) == 0

    lines = [json.loads(t)["line"] for t in out.read_text().splitlines()]
    assert lines == list(range(1, ROWS + 1))
    assert out.read_bytes() == reference.read_bytes()
