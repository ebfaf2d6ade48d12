"""The onnx engine: the model's decoder in 8-bit weights on onnxruntime's CPU kernels.

It decodes exactly as the transformers engine does (Outlines' grammar, a shared head computed
once, prompt-lookup guesses checked in one pass, one prompt at a time), over `OnnxDecoder`, which
answers a forward pass as a transformers causal LM does. The weights are converted once from
the pinned model (`onnx_weights.py`), and the engine's fingerprint names the conversion.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, cast

from pydantic import BaseModel, ConfigDict, Field

from ..errors import MissingExtraError
from .manifests import ModelManifest
from .onnx_weights import (
    DECODER,
    EMBEDDINGS,
    EMBEDDINGS_KEY,
    GENAI_CONFIG,
    OUTPUT_LAYER,
    onnx_dir,
    onnx_fingerprint,
)
from .transformers import TransformersEngine
from .weights import PINNED_LOADING

if TYPE_CHECKING:
    import numpy as np
    import torch

DTYPE = "int8"
"""The precision of the decoder's weights, as the engine's identity names it."""


class OnnxOptions(BaseModel):
    """How the onnx engine runs a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    RUNTIME: ClassVar[frozenset[str]] = frozenset({"threads"})

    device: Literal["cpu"] = "cpu"
    reuse_prefix: bool = True
    """Compute a shared head (a context ahead of several questions) once for its prompts."""
    guess_tokens: int = Field(default=8, ge=0)
    """Tokens of a claim list guessed ahead from its prompt and checked in one forward pass."""
    threads: int | None = Field(default=None, ge=1)
    """CPU threads onnxruntime and torch compute with; None: one per core."""


class OnnxCache:
    """The keys and values of the tokens so far, layer by layer, used as the transformers
    engine uses a transformers cache: extended in place by each forward pass given it, cut back
    with `crop`."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.layers = layers

    def get_seq_length(self) -> int:
        return int(self.layers[0][0].shape[2])

    def crop(self, length: int) -> None:
        """Keep the first `length` tokens (a negative `length`: drop that many from the end)."""
        keep = length if length >= 0 else self.get_seq_length() + length
        self.layers = [(k[:, :, :keep], v[:, :, :keep]) for k, v in self.layers]


class Forward(NamedTuple):
    """What a forward pass returns: logits of the last positions, and the extended cache."""

    logits: torch.Tensor
    past_key_values: OnnxCache


class OnnxDecoder:
    """The ONNX decoder between its embeddings and its output layer, called as a transformers
    causal LM is (`model(input_ids=..., past_key_values=..., use_cache=True)`).

    Logits are computed for the last `positions` tokens of a pass only: the prompt's last
    token, or every token of a step of guesses (at most `positions` long)."""

    def __init__(self, folder: Path, positions: int, threads: int | None) -> None:
        import onnxruntime
        import torch
        from safetensors.torch import load_file
        from transformers import GenerationConfig

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if threads is not None:
            options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(
            str(folder / DECODER), options, providers=["CPUExecutionProvider"]
        )
        self._output = onnxruntime.InferenceSession(
            str(folder / OUTPUT_LAYER), options, providers=["CPUExecutionProvider"]
        )
        self._outputs = [o.name for o in self._session.get_outputs()]
        shape = json.loads((folder / GENAI_CONFIG).read_text())["model"]["decoder"]
        self._layers = int(shape["num_hidden_layers"])
        self._heads = int(shape["num_key_value_heads"])
        self._head_size = int(shape["head_size"])
        # Mapped from the file: a pass reads its own tokens' rows.
        self._embeddings = load_file(str(folder / EMBEDDINGS))[EMBEDDINGS_KEY]
        self._positions = positions
        self.generation_config = GenerationConfig.from_pretrained(folder, local_files_only=True)
        self._torch = torch

    def __call__(
        self,
        input_ids: torch.Tensor,
        past_key_values: OnnxCache | None = None,
        use_cache: bool = True,
    ) -> Forward:
        import numpy as np

        ids = input_ids.cpu()
        layers = past_key_values.layers if past_key_values is not None else self._empty()
        seen = int(layers[0][0].shape[2])
        feeds: dict[str, np.ndarray] = {
            "inputs_embeds": self._embeddings[ids].float().numpy(),
            "attention_mask": np.ones((1, seen + ids.shape[1]), dtype=np.int64),
        }
        for n, (key, value) in enumerate(layers):
            feeds[f"past_key_values.{n}.key"] = np.ascontiguousarray(key)
            feeds[f"past_key_values.{n}.value"] = np.ascontiguousarray(value)
        outputs = dict(zip(self._outputs, self._session.run(self._outputs, feeds), strict=True))
        hidden = outputs["hidden_states"]
        pairs = [
            (outputs[f"present.{n}.key"], outputs[f"present.{n}.value"])
            for n in range(self._layers)
        ]
        if past_key_values is None:
            past_key_values = OnnxCache(pairs)
        else:
            past_key_values.layers = pairs
        [logits] = self._output.run(["logits"], {"hidden_states": hidden[0, -self._positions :]})
        logits = self._torch.from_numpy(logits).unsqueeze(0)
        return Forward(logits, past_key_values)

    def _empty(self) -> list[tuple[np.ndarray, np.ndarray]]:
        import numpy as np

        empty = np.zeros((1, self._heads, 0, self._head_size), dtype=np.float32)
        return [(empty, empty)] * self._layers


class OnnxEngine(TransformersEngine):
    """Runs a pinned model's decoder, converted once to 8-bit weights, on onnxruntime (CPU)."""

    def __init__(self, manifest: ModelManifest, options: OnnxOptions | None = None) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import onnxruntime  # noqa: F401
            import outlines  # noqa: F401
            import torch
            from transformers import AutoTokenizer
        except ImportError as e:
            raise MissingExtraError(str(e.name), "pip install 'offline-recall[onnx]'") from e

        chosen = options or OnnxOptions()
        self.options = chosen
        if chosen.threads is not None:
            torch.set_num_threads(chosen.threads)
        folder = onnx_dir(manifest)
        self._tokenizer: Any = cast(Any, AutoTokenizer.from_pretrained(folder, **PINNED_LOADING))
        decoder = OnnxDecoder(folder, chosen.guess_tokens + 1, chosen.threads)
        self._start("onnx", manifest, decoder, DTYPE)
        self._identity = self._identity.model_copy(
            update={"fingerprint": onnx_fingerprint(manifest)}
        )
