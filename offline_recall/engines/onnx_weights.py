"""A pinned model's weights as an ONNX decoder in 8-bit blocks, for the onnx engine.

The decoder's layers and last norm are written once by onnxruntime-genai's model builder: each
linear weight in int8 with one scale per block of 128 input values (`MatMulNBits`, computed by
onnxruntime's CPU kernels with the activations in int8, one scale per block of a token's
values). In 4 bits (blocks of 32) the embedded model's last hidden states point elsewhere than
its own (cosine 0.85 to 0.96 a token, the next token differing on 5 of 10); in 8 bits they agree
(0.997 to 1.0). Blocks of 128 rather than 32 take 0.35 GiB less for the 1.5B judge and still
decide 99.4% of its dev pairs as its bfloat16 weights do (benchmarks/speed/RESULTS.md).

The embeddings and the output layer are left out of the decoder. The embeddings are kept in
bfloat16 (`embeddings.safetensors`) and read from the file as they are used: a prompt reads
only its own tokens' rows. The output layer is a graph of its own (`output_layer.onnx`), its
weight quantized as the decoder's are, so the engine computes logits only for the positions it
reads, never a vocabulary's worth for every prompt token.

The conversion starts from the folder the other engines load (the GGUF dequantised once, and
for an int8 manifest those int8 values) and runs in child processes, so a scoring process never
holds the full-precision weights. Its recipe is part of the onnx engine's fingerprint
(`onnx_fingerprint`), so a run's identity names the weights that judged it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..paths import cache_root
from .manifests import ModelManifest
from .weights import (
    PINNED_LOADING,
    cache_is_intact,
    converted_once,
    load_dequantized,
    model_dir,
    verified_source,
)

RECIPE: dict[str, str] = {
    "precision": "int8",
    "block_size": "128",
    "accuracy_level": "4",
    "exclude_embeds": "true",
    "exclude_lm_head": "true",
    "embeddings": "bfloat16",
    "output_layer": "int8, blocks of 128",
}
"""How the decoder is written (the builder's options) and the layers beside it."""

DECODER = "model.onnx"
OUTPUT_LAYER = "output_layer.onnx"
"""The output layer alone: hidden states of some positions in, their logits out."""
EMBEDDINGS = "embeddings.safetensors"
"""The embeddings in bfloat16 (`EMBEDDINGS_KEY`), each row as the model's input layer gives it."""
EMBEDDINGS_KEY = "embeddings"
GENAI_CONFIG = "genai_config.json"
"""The builder's description of the decoder (layers, heads, head size)."""


def onnx_fingerprint(manifest: ModelManifest) -> str:
    """The fingerprint of `manifest`'s model as the onnx engine runs it: the pinned model's
    and the conversion recipe."""
    text = manifest.fingerprint + "\0" + json.dumps(RECIPE, sort_keys=True)
    return f"{manifest.name}@{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def onnx_dir(manifest: ModelManifest) -> Path:
    """The ONNX folder of `manifest`'s model, converted once into the cache and checked by its
    hashes on every load."""
    fingerprint = onnx_fingerprint(manifest)
    target = cache_root() / "models" / fingerprint.replace("@", "-onnx-")
    if cache_is_intact(target):
        verified_source(manifest)
    else:
        source = model_dir(manifest)  # verified too, and converted for the other engines once
        dequantize = manifest.quantize is not None
        converted_once(target, fingerprint, str(source), lambda w: _convert(source, dequantize, w))
    return target


def _convert(source: Path, dequantize: bool, work: Path) -> None:
    """Two processes, one after the other, so that the memory of one is free for the next: the
    layers beside the decoder and a plain copy of the model (`_write`), then the builder over
    the copy. What they print goes to a log, kept on failure."""
    log = work / "conversion.log"
    scratch = work / "scratch"
    prepare = [sys.executable, "-m", __name__, str(source), str(work), str(scratch / "plain")]
    built = ("precision", "embeddings", "output_layer")
    build = [
        *(sys.executable, "-m", "onnxruntime_genai.models.builder"),
        *("-i", str(scratch / "plain"), "-o", str(scratch / "decoder")),
        *("-p", RECIPE["precision"], "-e", "cpu", "-c", str(scratch / "cache")),
        "--extra_options",
        *(f"{k}={v}" for k, v in RECIPE.items() if k not in built),
    ]
    scratch.mkdir()
    # The builder runs outside any git checkout: it writes the commit of its working folder
    # into the model, which would make the same conversion differ from folder to folder.
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with log.open("w") as out:
        for command in ([*prepare, "--dequantize"] if dequantize else prepare, build):
            done = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, cwd=scratch, env=environment
            )
            if done.returncode != 0:
                break
    if done.returncode != 0:
        kept = Path(tempfile.mkdtemp(prefix="offline-recall-onnx-")) / log.name
        shutil.copy(log, kept)
        lines = log.read_text(errors="replace").strip().splitlines() or ["no output"]
        raise ModelError(
            f"converting {source.name} to ONNX failed: {lines[-1][:300]} (log: {kept})"
        )
    for name in (DECODER, f"{DECODER}.data", GENAI_CONFIG):
        (scratch / "decoder" / name).rename(work / name)
    shutil.rmtree(scratch)
    log.unlink()


def _write(source: Path, dequantize: bool, work: Path, plain: Path) -> None:
    """In a child process: the embeddings and the output layer written beside the decoder, the
    tokenizer and generation settings, and a plain safetensors copy of the model in bfloat16
    (the int8 values dequantised where the source is int8) for the builder."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model: Any = (
        load_dequantized(source, torch.bfloat16)
        if dequantize
        else AutoModelForCausalLM.from_pretrained(source, **PINNED_LOADING, dtype=torch.bfloat16)
    )
    save_file({EMBEDDINGS_KEY: _embeddings(model)}, str(work / EMBEDDINGS))
    _write_output_layer(model.get_output_embeddings().weight.detach(), work / OUTPUT_LAYER)
    model.save_pretrained(plain, safe_serialization=True)
    model.generation_config.save_pretrained(work)
    tokenizer = AutoTokenizer.from_pretrained(source, **PINNED_LOADING)
    tokenizer.save_pretrained(plain)
    tokenizer.save_pretrained(work)


def _embeddings(model: Any) -> Any:
    """The embeddings in bfloat16, a copy of their own. An input layer that scales its rows
    (Gemma's) has the scale applied here, as the decoder reads the rows as given."""
    import torch

    inputs = model.get_input_embeddings()
    scale = getattr(inputs, "embed_scale", 1.0)
    return (inputs.weight.detach().float() * scale).to(torch.bfloat16).contiguous().clone()


def _write_output_layer(weight: Any, path: Path) -> None:
    """The output layer as an ONNX graph of its own, its weight quantized as the decoder's are
    (int8, blocks of 128, symmetric, activations in int8)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    transposed = weight.float().T.contiguous().numpy()  # hidden size x vocabulary
    hidden, vocabulary = transposed.shape
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["hidden_states", "weight"], ["logits"], name="output")],
        "output_layer",
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["positions", hidden])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["positions", vocabulary])],
        [numpy_helper.from_array(transposed, "weight")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    quantizer = MatMulNBitsQuantizer(
        model, bits=8, block_size=128, is_symmetric=True, accuracy_level=4
    )
    quantizer.process()
    onnx.save_model(
        quantizer.model.model, str(path), save_as_external_data=True, location=f"{path.name}.data"
    )


if __name__ == "__main__":
    _write(Path(sys.argv[1]), "--dequantize" in sys.argv[4:], Path(sys.argv[2]), Path(sys.argv[3]))
