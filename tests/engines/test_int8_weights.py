"""Weights in int8, one scale per output channel: the rounding, what is quantized, and the
model's identity."""

from __future__ import annotations

import torch

from offline_recall import load_manifest
from offline_recall.engines.int8 import LEVELS, SCALE, quantized, quantized_state


def test_each_channel_is_rounded_to_the_nearest_of_its_levels() -> None:
    torch.manual_seed(0)
    weight = torch.randn(64, 96) * torch.linspace(0.01, 3.0, 64)[:, None]
    q, scale = quantized(weight)
    assert q.dtype == torch.int8 and scale.shape == (64, 1)
    assert int(q.abs().max()) == LEVELS  # each channel's largest weight takes the top level
    error = (q.float() * scale - weight).abs()
    assert bool((error <= scale / 2 + 1e-6).all())


def test_a_channel_of_zeros_stays_zero() -> None:
    q, scale = quantized(torch.zeros(2, 8))
    assert bool((q == 0).all()) and bool((scale > 0).all())


class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 16, bias=True)
        self.down_proj = torch.nn.Linear(16, 8, bias=False)
        self.norm = torch.nn.LayerNorm(16)


class _Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(10, 8)
        self.layers = torch.nn.ModuleList([_Block(), _Block()])
        self.lm_head = torch.nn.Linear(8, 10, bias=False)


def test_only_the_decoders_linear_weights_but_the_mlps_output_are_quantized() -> None:
    model = _Model()
    state = quantized_state(model)
    assert state["layers.0.proj.weight"].dtype == torch.int8
    assert state[f"layers.1.proj{SCALE}"].shape == (16, 1)
    kept_names = ("embed.weight", "lm_head.weight", "layers.0.proj.bias", "layers.0.norm.weight")
    for kept in (*kept_names, "layers.0.down_proj.weight"):
        assert state[kept].dtype == torch.float32
        assert torch.equal(state[kept], model.state_dict()[kept])


def test_quantized_weights_are_another_model() -> None:
    manifest = load_manifest("qwen2.5-coder-1.5b-instruct")
    plain = manifest.model_copy(update={"quantize": None})
    int8 = manifest.model_copy(update={"quantize": "int8"})
    assert int8.fingerprint != plain.fingerprint
    # A manifest that quantizes nothing is identified as before the option existed.
    assert load_manifest().quantize is None
    assert load_manifest().fingerprint == "smollm2-135m-instruct@9634263adf6bc976"
