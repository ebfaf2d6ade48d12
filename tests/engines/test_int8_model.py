"""The embedded model's weights in int8 (one scale per output channel): converted once into a
folder of their own, read by transformers (dequantised) and by vLLM (computed in int8)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from safetensors import safe_open

from offline_recall import Engine, create_engine, load_manifest
from offline_recall.engines.int8 import SCALE
from offline_recall.engines.manifests import ModelManifest
from offline_recall.engines.weights import cached_dir
from offline_recall.scorer.claims.prompts import load_prompts

from ..conftest import EXAMPLE

pytestmark = pytest.mark.model

# int8 weights moved the embedded model's P(yes) by at most 0.025 on these pairs in
# transformers (float32); vLLM, in bfloat16 with each token's activations in int8, moved it
# by at most 0.13 from that and 0.053 on average: the 135M model's answers sit near 0.45,
# where it is least sure. Weights read wrongly (without their scales) land anywhere.
P_YES_TOLERANCE = 0.03
VLLM_TOLERANCE = 0.16
VLLM_MEAN_TOLERANCE = 0.08


def _int8() -> ModelManifest:
    return load_manifest().model_copy(update={"quantize": "int8"})


def _pairs() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    sentences = [s for r in rows for s in r["groundTruth"].split(". ") if s]
    contexts = [c for r in rows for c in r["context"]]
    return [(c, s) for c in contexts[:4] for s in sentences[:4]]


def _p_yes(engine: Engine) -> list[float]:
    prompts = load_prompts("v2")
    found = engine.answer_probabilities([prompts.judge_prompt(*p) for p in _pairs()], ("yes", "no"))
    return [f[0] for f in found if isinstance(f, tuple)]


@pytest.fixture(scope="module")
def int8_engine(model_cache: Path) -> Engine:
    return create_engine("transformers", _int8())


def test_the_int8_weights_are_a_folder_and_a_model_of_their_own(
    int8_engine: Engine, embedded: Engine
) -> None:
    manifest = _int8()
    folder = cached_dir(manifest)
    assert folder != cached_dir(load_manifest())
    assert int8_engine.identity.fingerprint == manifest.fingerprint
    assert int8_engine.identity.fingerprint != embedded.identity.fingerprint
    config = json.loads((folder / "config.json").read_text())
    assert config["quantization_config"]["quant_method"] == "compressed-tensors"
    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        name = "model.layers.0.mlp.up_proj.weight"
        assert str(f.get_tensor(name).dtype) == "torch.int8"
        assert f.get_tensor(name.removesuffix(".weight") + SCALE).shape[1] == 1
        for kept in ("model.embed_tokens.weight", "model.layers.0.mlp.down_proj.weight"):
            assert str(f.get_tensor(kept).dtype) != "torch.int8"


def test_transformers_reads_the_int8_weights_as_the_models_own(
    int8_engine: Engine, embedded: Engine
) -> None:
    for quantized, plain in zip(_p_yes(int8_engine), _p_yes(embedded), strict=True):
        assert quantized == pytest.approx(plain, abs=P_YES_TOLERANCE)


@pytest.fixture(scope="module")
def vllm_int8(model_cache: Path) -> Iterator[Engine]:
    engine = create_engine("vllm", _int8())
    yield engine
    engine.close()


@pytest.mark.vllm
def test_vllm_computes_the_int8_weights_in_int8(vllm_int8: Engine, int8_engine: Engine) -> None:
    assert vllm_int8.identity.fingerprint == _int8().fingerprint
    found = _p_yes(vllm_int8)
    assert len(found) == len(_pairs())
    changes = []
    for in_int8, dequantised in zip(found, _p_yes(int8_engine), strict=True):
        assert 0.0 <= in_int8 <= 1.0 and not math.isnan(in_int8)
        assert in_int8 == pytest.approx(dequantised, abs=VLLM_TOLERANCE)
        changes.append(abs(in_int8 - dequantised))
    assert sum(changes) / len(changes) <= VLLM_MEAN_TOLERANCE
