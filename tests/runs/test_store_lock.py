"""Two runs into one store: the second is refused in one line naming the first, which finishes
with every row once."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from offline_recall.errors import ConfigurationError
from offline_recall.runs.lock import lock_path
from offline_recall.runs.store import RunStore

DRIVER = """
import dataclasses, os, sys, time
from offline_recall import FakeEngine
from offline_recall.engines import ENGINES
from offline_recall.cli import main

class Held(FakeEngine):
    # After its first window, judges nothing while the file named by $HOLD exists: the run
    # stays mid-way, one window stored.
    calls = 0

    def answer_probabilities(self, prompts, answers, done=None):
        Held.calls += 1
        while Held.calls > 1 and os.path.exists(os.environ["HOLD"]):
            time.sleep(0.1)
        return super().answer_probabilities(prompts, answers, done=done)

ENGINES["fake"] = dataclasses.replace(
    ENGINES["fake"], factory=lambda manifest, options: Held(record_calls=False)
)
main(sys.argv[1:], prog_name="offline-recall")
"""

ROWS = 200


def _dataset(path: Path) -> None:
    lines = []
    for i in range(ROWS):
        truth = f"Item {i} is red. Item {i} weighs {i} grams."
        context = [f"Item {i} is red and weighs {i} grams."]
        lines.append(json.dumps({"id": f"row-{i}", "groundTruth": truth, "context": context}))
    path.write_text("\n".join(lines) + "\n")


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


def _command(driver: Path | None, data: Path, out: Path, *extra: str) -> list[str]:
    """`score` in a process of its own: through the slow driver, or as a user runs it."""
    cli = ["-c", "from offline_recall.cli import main; main(prog_name='offline-recall')"]
    program = [str(driver)] if driver is not None else cli
    scoring = ["score", str(data), "--backend", "fake", "--out", str(out)]
    return [sys.executable, *program, *scoring, *extra]


def test_a_second_run_on_the_same_store_is_refused_and_nothing_is_lost(tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    data, out = tmp_path / "data.jsonl", tmp_path / "out.jsonl"
    _dataset(data)
    store = out.with_name(out.name + ".run.sqlite")
    hold = tmp_path / "hold"
    hold.touch()
    env = {**os.environ, "OFFLINE_RECALL_CACHE": str(tmp_path / "cache"), "HOLD": str(hold)}
    first = subprocess.Popen(
        _command(driver, data, out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while _stored(store) == 0:
            assert first.poll() is None, "the first run ended before the second started"
            assert time.monotonic() < deadline, "the first run stored nothing"
            time.sleep(0.1)
        for extra in ((), ("--restart",)):
            second = subprocess.run(
                _command(None, data, out, *extra),
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert first.poll() is None, "the first run ended before the second was refused"
            assert second.returncode == 1
            error = second.stderr.strip().splitlines()[-1]
            assert error == (
                f"Error: the run store {store} is in use by another run (process {first.pid} on "
                f"{os.uname().nodename}); wait for it to finish, or give another --out"
            )
            assert "Traceback" not in second.stderr
    finally:
        hold.unlink(missing_ok=True)
        _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr.decode()[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == list(range(1, ROWS + 1))
    assert {r["results"]["context-recall-scorer"]["status"] for r in records} == {"ok"}
    assert not lock_path(store).exists()


def test_a_store_is_free_again_once_closed(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore(path), pytest.raises(ConfigurationError, match=f"process {os.getpid()} on"):
        RunStore(path)
    with RunStore(path, restart=True) as again:
        assert again.created
    assert not lock_path(path).exists()


def test_a_run_whose_store_is_complete_says_nothing_is_left(tmp_path: Path) -> None:
    data, out = tmp_path / "data.jsonl", tmp_path / "out.jsonl"
    data.write_text(json.dumps({"groundTruth": "A.", "context": ["A."]}) + "\n")
    command = _command(None, data, out)
    for _ in range(2):
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    assert "1 of 1 rows are in the store" in done.stderr
    assert "none is left to score, writing the results" in done.stderr
    assert "scoring the rest" not in done.stderr


def test_a_hard_link_at_the_lock_is_refused_and_its_file_left_alone(tmp_path: Path) -> None:
    """`O_NOFOLLOW` stops a symbolic link only: a hard link is another name of the same file,
    which the lock would truncate and fill with its holder's process id."""
    from offline_recall.runs.lock import StoreLock

    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    store = tmp_path / "s.run.sqlite"
    os.link(victim, lock_path(store))
    with pytest.raises(ConfigurationError) as refused:
        StoreLock(store).acquire()
    said = str(refused.value)
    assert said.startswith(f"the run store's lock {lock_path(store)} is a file with other names")
    assert "\n" not in said
    assert victim.read_text() == "someone else's file\n"
    with pytest.raises(ConfigurationError, match="is a file with other names"):
        RunStore(store)
    assert victim.read_text() == "someone else's file\n"


def test_the_lock_is_removed_from_its_own_folder_never_through_a_link_in_its_place(
    tmp_path: Path,
) -> None:
    """A folder moved away while a run holds its store, and a link put in its place: the lock
    leaves the moved folder, and a file of the same name where the link points stays."""
    from offline_recall.runs.lock import StoreLock

    folder, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    lock = StoreLock(folder / "s.run.sqlite")
    lock.acquire()
    (elsewhere / "s.run.sqlite.lock").write_text("someone else's file\n")
    folder.rename(tmp_path / "moved")
    folder.symlink_to(elsewhere)
    lock.release()
    assert not (tmp_path / "moved" / "s.run.sqlite.lock").exists()
    assert (elsewhere / "s.run.sqlite.lock").read_text() == "someone else's file\n"
