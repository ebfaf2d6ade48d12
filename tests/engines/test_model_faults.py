"""Model faults are refused before any scoring, in one line that says what to do."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.engines.manifests import bundled_manifest_dir

from ..conftest import EXAMPLE

WEIGHTS = b"\x00" * 4096 + b"pretend safetensors weights" * 100


def _bundled() -> dict[str, Any]:
    path = bundled_manifest_dir() / "smollm2-135m-instruct.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, manifest: dict[str, Any]) -> Path:
    path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return path


def _folder_manifest(tmp_path: Path, weights: bytes) -> Path:
    folder = tmp_path / "weights"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(weights)
    manifest = _bundled() | {
        "name": "local-model",
        "format": "safetensors",
        "source": {"kind": "folder", "path": str(folder), "install": "restore the folder"},
        "files": [{"path": "model.safetensors", "sha256": hashlib.sha256(WEIGHTS).hexdigest()}],
    }
    return _write(tmp_path / "local.toml", manifest)


def _missing_package(tmp_path: Path) -> Path:
    manifest = _bundled()
    manifest["source"] = {**manifest["source"], "module": "no_such_weights_package"}
    return _write(tmp_path / "missing.toml", manifest)


def _changed_hash(tmp_path: Path) -> Path:
    manifest = _bundled()
    manifest["files"] = [{**manifest["files"][0], "sha256": "0" * 64}]
    return _write(tmp_path / "changed.toml", manifest)


def _truncated(tmp_path: Path) -> Path:
    return _folder_manifest(tmp_path, WEIGHTS[: len(WEIGHTS) // 2])


def _absent_file(tmp_path: Path) -> Path:
    path = _folder_manifest(tmp_path, WEIGHTS)
    (tmp_path / "weights" / "model.safetensors").unlink()
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_missing_package, "smollm2-135m-instruct are not installed; run: offline-recall models"),
        (_changed_hash, "refusing to load it; reinstall with: offline-recall models install"),
        (_truncated, "refusing to load it; reinstall with: restore the folder"),
        (_absent_file, "model.safetensors of local-model is missing; run: restore the folder"),
    ],
    ids=["missing weights", "hash mismatch", "truncated file", "missing file"],
)
def test_a_model_fault_stops_the_run_before_scoring(
    tmp_path: Path, make: Any, message: str
) -> None:
    manifest = make(tmp_path)
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--model", str(manifest), "--out", str(out)]
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    error = next(line for line in lines if line.startswith("Error: "))
    assert error == lines[-1] and message in error, result.output
    assert not out.exists()
    assert not (tmp_path / "r.jsonl.run.sqlite").exists()
    assert not (tmp_path / "r.jsonl.manifest.json").exists()
