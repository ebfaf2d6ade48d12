"""The documented path for a user who installs with pip: the package, then its model's weights."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..conftest import EXAMPLE

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.install


def _run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


def test_pip_install_then_models_install_in_a_fresh_venv(tmp_path: Path) -> None:
    """A new virtual environment, the package installed (not editable) with pip, then one
    command installs and verifies the embedded model's weights, and a real run scores."""
    venv = tmp_path / "venv"
    _run("python3", "-m", "venv", venv)
    bin_ = venv / "bin"
    _run(bin_ / "pip", "install", "-q", "torch==2.13.0")
    _run(bin_ / "pip", "install", "-q", "-c", ROOT / "constraints.txt", ROOT)
    env = {
        "PATH": f"{bin_}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "OFFLINE_RECALL_CACHE": str(tmp_path / "cache"),
    }
    listed = _run(bin_ / "offline-recall", "models", "list", env=env)
    assert "missing" in listed and "offline-recall models install" in listed
    installed = _run(bin_ / "offline-recall", "models", "install", env=env)
    assert "weights verified" in installed
    assert "verified" in _run(bin_ / "offline-recall", "models", "list", env=env)
    data = tmp_path / "one.jsonl"
    data.write_text(EXAMPLE.read_text().splitlines()[0] + "\n")
    scored = _run(bin_ / "offline-recall", "score", data, "--out", tmp_path / "r.jsonl", env=env)
    assert "mean recall" in scored
