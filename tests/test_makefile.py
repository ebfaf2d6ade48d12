"""`make` installs torch's CPU build from the CPU index when it answers, and says what it does
when it does not (here pip is a stand-in that records what it was asked)."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A virtual environment's bin folder whose pip writes its arguments to pip.args."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    pip = bin_dir / "pip"
    pip.write_text(f'#!/bin/sh\necho "$@" > {tmp_path / "pip.args"}\n')
    pip.chmod(0o755)
    return tmp_path


@pytest.fixture
def index() -> Iterator[str]:
    """A package index on loopback that answers for torch."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path.rstrip("/") == "/whl/cpu/torch"
            self.send_response(200 if found else 404)
            self.end_headers()
            self.wfile.write(b"<html></html>")

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/whl/cpu"
    server.shutdown()


def _torch(venv: Path, index: str) -> subprocess.CompletedProcess[str]:
    command = ["make", "--no-print-directory", "-C", str(ROOT), "torch-cpu"]
    settings = [f"VENV={venv / 'venv'}", f"TORCH_CPU_INDEX={index}", "TORCH_PROBE_SECONDS=5"]
    return subprocess.run(
        [*command, *settings],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )


def test_torch_comes_from_the_cpu_index_when_it_answers(venv: Path, index: str) -> None:
    done = _torch(venv, index)
    assert done.returncode == 0, done.stderr
    assert (venv / "pip.args").read_text().split() == [
        "install",
        "--index-url",
        index,
        "torch==2.13.0",
    ]
    assert f"torch: the CPU build from {index}" in done.stdout


def test_without_the_cpu_index_it_says_so_and_uses_pips_own(venv: Path) -> None:
    closed = "http://127.0.0.1:9/whl/cpu"  # the discard port: nothing listens there
    done = _torch(venv, closed)
    assert done.returncode == 0, done.stderr
    assert (venv / "pip.args").read_text().split() == ["install", "torch==2.13.0"]
    assert f"torch: {closed} did not answer within 5 s" in done.stderr
    assert "may be the CUDA build" in done.stderr


def test_the_demo_ends_with_the_next_command_and_how_to_put_the_tool_on_the_path(
    tmp_path: Path,
) -> None:
    """The commands as they run from the checkout: the tool is in .venv/bin, not on the PATH."""
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    tool = bin_dir / "offline-recall"
    tool.write_text("#!/bin/sh\necho scored\n")
    tool.chmod(0o755)
    (bin_dir / ".installed").touch()  # set up already: newer than pyproject.toml
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "demo", f"BIN={bin_dir}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == [
        f"next, the HTML report: {bin_dir}/offline-recall report example-results.jsonl",
        f"to run offline-recall without {bin_dir}/, put it on your PATH: source {bin_dir}/activate",
    ]


def test_the_demo_names_the_commands_of_the_checkouts_own_venv() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "-n", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert done.returncode == 0, done.stderr
    assert ".venv/bin/offline-recall report example-results.jsonl" in done.stdout
    assert "source .venv/bin/activate" in done.stdout
