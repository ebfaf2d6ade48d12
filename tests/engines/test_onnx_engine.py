"""The onnx engine on the real embedded model (SmolLM2-135M-Instruct): converted once to a
8-bit ONNX decoder, run on onnxruntime.

The tiny model is not a trustworthy judge, so these tests check the machinery: the conversion
and its identity, the decoder wired as the transformers engine reads a model, repeatable
numbers, and a whole run through the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from offline_recall import Engine, create_engine, load_manifest
from offline_recall.engines import Prompt
from offline_recall.engines.onnx import OnnxCache
from offline_recall.engines.onnx_weights import onnx_dir, onnx_fingerprint
from offline_recall.scorer.claims.prompts import load_prompts

from ..conftest import EXAMPLE, recall, run_cli

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

CONTEXT = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889."
)
CLAIMS = ["The Eiffel Tower is in Paris.", "It was completed in 1889.", "It is 330 metres tall."]


def test_a_cache_is_extended_and_cut_back_as_a_transformers_cache_is() -> None:
    layer = np.arange(2 * 5 * 3, dtype=np.float32).reshape(1, 2, 5, 3)
    cache = OnnxCache([(layer, layer + 1)])
    assert cache.get_seq_length() == 5
    cache.crop(-2)
    assert cache.get_seq_length() == 3
    cache.crop(1)
    assert cache.get_seq_length() == 1
    assert (cache.layers[0][1] == layer[:, :, :1] + 1).all()


@pytest.fixture(scope="module")
def onnx_engine(model_cache: Path) -> Engine:
    return create_engine("onnx")


@pytest.mark.model
def test_first_use_converts_the_model_and_names_the_conversion(
    onnx_engine: Engine, model_cache: Path
) -> None:
    manifest = load_manifest()
    folder = onnx_dir(manifest)
    assert folder.is_relative_to(model_cache)
    marker = json.loads((folder / "offline-recall.json").read_text())
    assert {"model.onnx", "output_layer.onnx", "embeddings.safetensors"} <= set(marker["files"])
    identity = onnx_engine.identity
    assert (identity.engine, identity.dtype) == ("onnx", "int8")
    assert identity.fingerprint == marker["fingerprint"] == onnx_fingerprint(manifest)
    assert identity.fingerprint != manifest.fingerprint


@pytest.mark.model
def test_the_decoder_continues_a_text_as_the_model_does(
    onnx_engine: Engine, embedded: Engine
) -> None:
    """The decoder's hidden states meet the output layer at the right place: after a claim list
    half written, the 8-bit decoder's logits follow the full-precision model's (the same five
    best tokens; a mismatched layer or cache gives unrelated ones)."""
    sentence = "Water boils at 100 degrees Celsius at sea level."
    prompt = load_prompts("v4").extract_prompt(sentence)
    full: Any = embedded  # the engines' chat template and model, outside the protocol
    light: Any = onnx_engine
    ids = full.chat.ids(prompt)
    assert light.chat.ids(prompt) == ids
    step = torch.tensor([ids + full.chat.tokens('{"claims": ["Water boils at 100 degrees Celsius')])
    with torch.inference_mode():
        expected = full.model(input_ids=step).logits[0, -1].float()
    found = light.model(input_ids=step).logits[0, -1]
    assert set(found.topk(5).indices.tolist()) == set(expected.topk(5).indices.tolist())
    assert torch.corrcoef(torch.stack([expected, found]))[0, 1] > 0.99


@pytest.mark.model
def test_answer_probabilities_repeat_and_do_not_depend_on_the_batch(onnx_engine: Engine) -> None:
    prompts = load_prompts("v2")
    asked = [prompts.judge_prompt(CONTEXT, c) for c in CLAIMS]
    other = prompts.judge_prompt("Rome is the capital of Italy.", CLAIMS[0])
    batched = onnx_engine.answer_probabilities(asked, ("yes", "no"))
    alone = [onnx_engine.answer_probabilities([p], ("yes", "no"))[0] for p in asked]
    mixed = onnx_engine.answer_probabilities([other, *reversed(asked)], ("yes", "no"))[1:]
    assert batched == alone == list(reversed(mixed))
    for found in batched:
        assert isinstance(found, tuple) and sum(found) == pytest.approx(1.0)
    # The shared head computed once gives about what the whole prompt in one pass gives: the
    # activations are quantized to int8 in blocks a pass, so a prompt's numbers depend on how
    # it is cut into passes (by its own head, never by its batch). The tiny model moves most
    # (0.09 here); the 1.5B judge at most 0.022 on 24 WiCE prompts, 0.005 on average.
    whole = [Prompt(messages=p.messages) for p in asked]
    in_one_pass = onnx_engine.answer_probabilities(whole, ("yes", "no"))
    assert [f[0] for f in in_one_pass] == pytest.approx([f[0] for f in batched], abs=0.15)
    assert in_one_pass != batched  # the cut shows: the head was reused


@pytest.mark.model
def test_a_run_on_the_onnx_engine_repeats_byte_for_byte(tmp_path: Path, model_cache: Path) -> None:
    """Two processes score the same rows on the onnx engine with nothing shared: the result
    files are the same byte for byte, and each names the converted weights."""
    data = tmp_path / "three.jsonl"
    data.write_text("\n".join(EXAMPLE.read_text().splitlines()[:3]) + "\n")
    outs = [tmp_path / f"run{i}.jsonl" for i in (1, 2)]
    for out in outs:
        run_cli("score", str(data), "--backend", "onnx", "--no-cache", "--out", str(out))
    first, second = (out.read_bytes() for out in outs)
    assert first == second
    results = [recall(json.loads(line)) for line in first.splitlines()]
    assert [r["status"] for r in results] == ["ok"] * 3
    for result in results:
        assert 0 <= result["score"] <= 1 and result["verdicts"]
        assert result["model_fingerprint"] == onnx_fingerprint(load_manifest())


@pytest.mark.model
def test_the_conversion_repeats_byte_for_byte(
    onnx_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Converted again into another cache, from another working folder (outside this git
    checkout), every file of the converted model is the same, by its sha256."""
    first = json.loads((onnx_dir(load_manifest()) / "offline-recall.json").read_text())
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    again = json.loads((onnx_dir(load_manifest()) / "offline-recall.json").read_text())
    assert again["files"] == first["files"]
