"""The transformers engine: Outlines-constrained JSON, answer probabilities over a cached head."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from ..errors import MissingExtraError
from .base import Done, Failed, JsonOutput, Prompt
from .chat import ChatTemplate, PinnedEngine
from .lookup_decoding import Head, greedy_constrained, head_of
from .manifests import ModelManifest
from .weights import PINNED_LOADING, load_dequantized, model_dir, quiet_loading

if TYPE_CHECKING:
    import torch


class TransformersOptions(BaseModel):
    """How the transformers engine runs a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    RUNTIME: ClassVar[frozenset[str]] = frozenset({"threads"})

    device: str = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    reuse_prefix: bool = True
    """Compute a shared head (a context ahead of several questions, the instructions ahead of
    several texts to break into claims) once for its prompts."""
    guess_tokens: int = Field(default=8, ge=0)
    """Tokens of a claim list guessed ahead from its prompt and checked in one forward pass
    (the text is greedy decoding's either way, up to float rounding); 0: one token a pass."""
    threads: int | None = Field(default=None, ge=1)
    """CPU threads torch computes with; None: torch's default (one per core)."""


class DecodingOptions(Protocol):
    """What the decoding below reads of an engine's options."""

    @property
    def device(self) -> str: ...
    @property
    def reuse_prefix(self) -> bool: ...
    @property
    def guess_tokens(self) -> int: ...
    @property
    def threads(self) -> int | None: ...


class TransformersEngine(PinnedEngine):
    """Runs a pinned model with transformers on CPU (or a GPU, `device="cuda"`)."""

    def __init__(self, manifest: ModelManifest, options: TransformersOptions | None = None) -> None:
        # OpenMP threads that wait for each other by spinning fight any other busy process
        # for the cores; sleeping instead costs nothing on a quiet machine and keeps a loaded
        # one from slowing twofold (benchmarks/speed/threads.py). It only takes before torch starts.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import outlines  # noqa: F401  (an engine without it fails here, not at its first grammar)
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise MissingExtraError(str(e.name), "pip install offline-recall") from e

        chosen = options or TransformersOptions()
        self.options: DecodingOptions = chosen
        if chosen.threads is not None:
            torch.set_num_threads(chosen.threads)
        folder = model_dir(manifest)
        # Engine objects stay untyped here: their stubs do not describe these call patterns.
        self._tokenizer: Any = cast(
            Any,
            AutoTokenizer.from_pretrained(folder, **PINNED_LOADING),
        )
        dtype = chosen.dtype
        with quiet_loading():
            if manifest.quantize == "int8":
                model = load_dequantized(folder, getattr(torch, dtype))
            else:
                model = AutoModelForCausalLM.from_pretrained(
                    folder, **PINNED_LOADING, use_safetensors=True, dtype=getattr(torch, dtype)
                )
        model = cast(Any, model).to(chosen.device).eval()
        self._start("transformers", manifest, model, dtype)

    def _start(self, name: str, manifest: ModelManifest, model: Any, dtype: str) -> None:
        """What follows a model's load (`model` answers as a transformers causal LM does): the
        chat template, Outlines' view of the model for its grammars, and the end tokens."""
        import outlines

        self._model: Any = model
        super().__init__(name, manifest, ChatTemplate(self._tokenizer, manifest), dtype)
        self._outlines_model = outlines.from_transformers(self._model, self._tokenizer)
        self._grammars: dict[type[BaseModel], Any] = {}
        eos = self._model.generation_config.eos_token_id
        self._end_tokens = frozenset(eos if isinstance(eos, list) else [eos])

    @property
    def model(self) -> Any:
        """The loaded transformers model (for measurements of the bare engine)."""
        return self._model

    def close(self) -> None:
        """Nothing to stop: the model lives in this process."""

    # Constrained generation -----------------------------------------------------------

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        # One prompt at a time: a text must not depend on what it was batched with. A head
        # shared by several prompts (the instructions and worked example) is computed once.
        grammar = self._grammar(output.schema)
        texts: list[str | Failed] = []
        heads: dict[tuple[int, ...], Head] = {}
        for prompt in prompts:
            ids, shared = self.chat.split(prompt)
            head = None
            if self.options.reuse_prefix and shared:
                key = tuple(ids[:shared])
                if key not in heads:
                    heads[key] = head_of(self._model, ids[:shared], self.options.device)
                head = heads[key]
            texts.append(self._constrained(ids, grammar, output.max_tokens, head))
            if done is not None:
                done(1)
        return texts

    def _constrained(self, ids: list[int], grammar: Any, max_tokens: int, head: Head | None) -> str:
        """Greedy tokens after exactly `ids`, under Outlines' grammar for the output.

        The prompt goes to the model as token ids, the same ones the vLLM engine sends: Outlines
        given a string would wrap it in the tokenizer's chat template a second time (a default
        system turn, the whole rendered chat as one user message).
        """
        written = greedy_constrained(
            self._model,
            ids,
            grammar,
            self._end_tokens,
            max_tokens,
            self.options.guess_tokens,
            self.options.device,
            head,
        )
        return str(self._tokenizer.decode(written, skip_special_tokens=True))

    def _grammar(self, output_type: type[BaseModel]) -> Any:
        """Outlines' grammar index for `output_type`, compiled once."""
        if output_type not in self._grammars:
            from outlines.generator import SteerableGenerator

            processor: Any = SteerableGenerator(self._outlines_model, output_type).logits_processor
            self._grammars[output_type] = processor.index
        return self._grammars[output_type]

    # Answer probabilities -------------------------------------------------------------

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """One forward pass per prompt; a head shared by several prompts is computed once and
        its cached keys and values serve each of them, one prompt at a time, so a prompt's
        numbers never depend on its batch."""
        answer_ids = [self.chat.answer_ids(a) for a in answers]
        rows = [self.chat.split(p) for p in prompts]
        if not self.options.reuse_prefix:
            rows = [(ids, 0) for ids, _ in rows]
        by_head: dict[tuple[int, ...], list[int]] = {}
        for i, (ids, shared) in enumerate(rows):
            by_head.setdefault(tuple(ids[:shared]), []).append(i)
        out: list[tuple[float, ...] | Failed] = [Failed("not computed")] * len(prompts)
        for head, members in by_head.items():
            tails = [rows[i][0][len(head) :] for i in members]
            found = self._after_head(list(head), tails, answer_ids)
            for i, probs in zip(members, found, strict=True):
                out[i] = probs
            if done is not None:
                done(len(members))
        return out

    def _after_head(
        self, head: list[int], tails: list[list[int]], answer_ids: list[tuple[int, ...]]
    ) -> list[tuple[float, ...]]:
        import torch

        device = self.options.device
        with torch.inference_mode():
            cache = head_of(self._model, head, device).cache if head else None
            found: list[tuple[float, ...]] = []
            for tail in tails:
                ids = torch.tensor([tail], device=device)
                logits = self._model(input_ids=ids, past_key_values=cache, use_cache=True).logits
                if cache is not None:
                    cache.crop(-len(tail))  # back to the head alone for the next tail
                found.append(self._answers(logits[0, -1], answer_ids))
        return found

    @staticmethod
    def _answers(logits: torch.Tensor, answer_ids: list[tuple[int, ...]]) -> tuple[float, ...]:
        """Each answer's share of the answers' probability mass; an answer of several
        spellings has the mass of all of them."""
        import torch

        if all(len(ids) == 1 for ids in answer_ids):
            probs = torch.softmax(logits[[ids[0] for ids in answer_ids]].float(), dim=-1)
        else:
            masses = torch.stack(
                [torch.logsumexp(logits[list(ids)].float(), 0) for ids in answer_ids]
            )
            probs = torch.softmax(masses, dim=-1)
        return tuple(float(p) for p in probs.cpu())
