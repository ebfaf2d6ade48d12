"""What `--runner ray` and its options say without a Ray run: these need no Ray installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    row = {"id": "q1", "groundTruth": "Item 1 is red.", "context": ["Item 1 is red."]}
    path.write_text(json.dumps(row) + "\n")
    return path


def test_without_the_extra_the_ray_runner_says_what_to_install(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if not installed
    out = data.with_name("no-ray.jsonl")
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--runner", "ray", "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "ray is not installed; run: pip install 'offline-recall[ray]'" in result.output
    assert not out.with_name(out.name + ".shards").exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--shards", "elsewhere"], "--shards, --no-merge and --ray-address need --runner ray"),
        (["--runner", "ray", "--store", "x.sqlite"], "on Ray give --shards DIR"),
    ],
)
def test_ray_options_outside_a_ray_run_are_refused(data: Path, given: list[str], said: str) -> None:
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", *given])
    assert result.exit_code != 0 and said in result.output


def test_importing_the_package_does_not_import_ray() -> None:
    check = "import sys, offline_recall.cli; assert 'ray' not in sys.modules, 'ray imported'"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
