"""`offline-recall models pin`: a manifest for a user's own safetensors folder."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from offline_recall import load_manifest
from offline_recall.cli import main
from offline_recall.engines.manifests import WeightsState, weights_state


def model_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 4096}))
    (folder / "tokenizer.json").write_text("{}")
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{ x }}"}))
    return folder


def test_pin_writes_a_manifest_that_verifies(tmp_path: Path) -> None:
    folder = model_folder(tmp_path)
    out = tmp_path / "mine.toml"
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", "mine", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    manifest = load_manifest(out)
    assert manifest.context_window == 4096
    assert manifest.chat_template == "{{ x }}"
    assert {f.path for f in manifest.files} == {
        "model.safetensors",
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    assert weights_state(manifest) is WeightsState.VERIFIED
    (folder / "tokenizer.json").write_text('{"changed": true}')
    assert weights_state(manifest) is WeightsState.MISMATCH


def test_pin_refuses_a_folder_of_pickled_weights(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "pytorch_model.bin").write_bytes(b"pickle")
    result = CliRunner().invoke(main, ["models", "pin", str(folder), "--name", "old"])
    assert result.exit_code == 1
    assert "pickled weights are not loaded" in result.output
