"""The vLLM engine's options, read without loading the engine: the dtype it runs in by default."""

from __future__ import annotations

import pytest
import torch

from offline_recall.engines import engine_kind
from offline_recall.engines import vllm as vllm_engine
from offline_recall.engines.vllm import VLLMOptions, native_dtype
from offline_recall.runs.resolve import resolve_spec


def _machine(
    monkeypatch: pytest.MonkeyPatch, *, gpu: bool, arch: str, capability: str = "DEFAULT"
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu)
    monkeypatch.setattr(vllm_engine.platform, "machine", lambda: arch)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)


@pytest.mark.parametrize(
    ("gpu", "arch", "capability", "expected"),
    [
        (False, "x86_64", "AVX2", "float32"),  # bfloat16 emulated: many times slower
        (False, "x86_64", "NO AVX", "float32"),
        (False, "x86_64", "AVX512", "bfloat16"),
        (False, "aarch64", "DEFAULT", "bfloat16"),
        (True, "x86_64", "AVX2", "bfloat16"),  # the GPU computes it
    ],
)
def test_the_default_dtype_is_the_one_this_machine_computes(
    monkeypatch: pytest.MonkeyPatch, gpu: bool, arch: str, capability: str, expected: str
) -> None:
    _machine(monkeypatch, gpu=gpu, arch=arch, capability=capability)
    assert native_dtype() == expected
    assert VLLMOptions().dtype == expected


def test_a_run_records_the_dtype_it_runs_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec holds the chosen dtype, not a default to be chosen again: a run read back on
    another machine (a Ray worker, `verify`) runs in the same dtype."""
    _machine(monkeypatch, gpu=False, arch="x86_64", capability="AVX2")
    spec = resolve_spec(engine="vllm")
    assert spec.engine.options["dtype"] == "float32"
    _machine(monkeypatch, gpu=True, arch="x86_64", capability="AVX2")
    again = engine_kind("vllm").parse_options(spec.engine.options)
    assert isinstance(again, VLLMOptions) and again.dtype == "float32"
    assert resolve_spec(engine="vllm").engine.options["dtype"] == "bfloat16"


def test_a_given_dtype_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, gpu=False, arch="x86_64", capability="AVX2")
    spec = resolve_spec(engine="vllm", engine_options={"dtype": "bfloat16"})
    assert spec.engine.options["dtype"] == "bfloat16"
