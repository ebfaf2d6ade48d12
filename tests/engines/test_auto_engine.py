"""A run that names no engine takes the model's own: vLLM for the Qwen judges where vLLM is
installed, else onnx where it is, transformers otherwise and for every other model."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from offline_recall.engines import AUTO, chosen_engine, resolve_model
from offline_recall.engines.manifests import DEFAULT_MODEL, load_manifest

QWEN = "qwen2.5-coder-1.5b-instruct"


def _vllm_installed(monkeypatch: pytest.MonkeyPatch, installed: bool, onnx: bool = False) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name == "vllm":
            return real("json") if installed else None
        if name in ("onnxruntime", "onnxruntime_genai"):
            return real("json") if onnx else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


@pytest.mark.parametrize("installed", [True, False])
def test_the_embedded_model_runs_on_transformers(
    monkeypatch: pytest.MonkeyPatch, installed: bool
) -> None:
    _vllm_installed(monkeypatch, installed, onnx=True)
    assert chosen_engine(AUTO, load_manifest(DEFAULT_MODEL)) == "transformers"


@pytest.mark.parametrize("model", [QWEN, "qwen2.5-coder-0.5b-instruct"])
def test_the_qwen_judges_run_on_vllm_where_it_is_installed(
    monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    _vllm_installed(monkeypatch, True, onnx=True)
    assert chosen_engine(AUTO, load_manifest(model)) == "vllm"
    _vllm_installed(monkeypatch, False, onnx=True)
    assert chosen_engine(AUTO, load_manifest(model)) == "onnx"
    _vllm_installed(monkeypatch, False)
    assert chosen_engine(AUTO, load_manifest(model)) == "transformers"


def test_a_named_engine_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    _vllm_installed(monkeypatch, True)
    assert chosen_engine("transformers", load_manifest(QWEN)) == "transformers"


def test_a_resolved_model_names_the_engine_it_took(monkeypatch: pytest.MonkeyPatch) -> None:
    _vllm_installed(monkeypatch, False)
    assert resolve_model(AUTO, QWEN).kind.name == "transformers"
    assert resolve_model(AUTO, DEFAULT_MODEL).kind.name == "transformers"
