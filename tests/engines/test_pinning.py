"""`offline-recall models pin`: a manifest for a user's own safetensors folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from offline_recall import load_manifest
from offline_recall.cli import main
from offline_recall.engines.pinning import context_window
from offline_recall.engines.weights import WeightsState, weights_state


def model_folder(tiny: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the tiny Qwen2 model, with its chat template inside tokenizer_config.json."""
    folder = tmp_path / "my-model"
    shutil.copytree(tiny["qwen2"], folder)
    template = folder / "chat_template.jinja"
    config = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(
        json.dumps({**config, "chat_template": template.read_text()})
    )
    template.unlink()
    return folder


def test_pin_writes_a_manifest_that_verifies(tiny: dict[str, Path], tmp_path: Path) -> None:
    folder = model_folder(tiny, tmp_path)
    out = tmp_path / "mine.toml"
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", "mine", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    manifest = load_manifest(out)
    assert manifest.context_window == 2048
    assert manifest.chat_template.startswith("{%- if tools %}")
    assert {f.path for f in manifest.files} == {
        "model.safetensors",
        "config.json",
        "generation_config.json",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    assert weights_state(manifest) is WeightsState.VERIFIED
    (folder / "tokenizer.json").write_text('{"changed": true}')
    assert weights_state(manifest) is WeightsState.MISMATCH


def test_the_context_window_follows_the_config() -> None:
    assert context_window({"max_position_embeddings": 4096}) == 4096
    assert context_window({"text_config": {"max_position_embeddings": 131072}}) == 131072
    assert context_window({"n_positions": 1024}, tokenizer_max=512) == 512
    assert context_window({}) is None


def test_pin_refuses_a_folder_of_pickled_weights(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "pytorch_model.bin").write_bytes(b"pickle")
    result = CliRunner().invoke(main, ["models", "pin", str(folder), "--name", "old"])
    assert result.exit_code == 1
    assert "pickled weights are not loaded" in result.output
