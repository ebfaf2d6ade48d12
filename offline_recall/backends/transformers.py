"""The transformers backend: Outlines-constrained extraction, cached-prefix yes/no verdicts."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import BaseModel, Field, StringConstraints, ValidationError

from ..errors import MissingExtraError, ModelError
from ..models import ModelManifest, model_dir, quiet_loading
from ..prompts import Message, load_prompts
from .base import BackendInfo, Failed

if TYPE_CHECKING:
    import torch

Claim = Annotated[str, StringConstraints(min_length=1)]
# Keys and values of a cached prefix, per token, may use this many tokens of a verdict batch.
_BATCH_TOKENS = 16_384


def claim_list_type(max_claims: int) -> type[BaseModel]:
    """The output type of extraction: `{"claims": [...]}` with 1..max_claims strings."""

    class ClaimList(BaseModel):
        claims: list[Claim] = Field(min_length=1, max_length=max_claims)

    return ClaimList


def finished_claims(raw: str) -> list[str]:
    """The complete strings of a `{"claims": [...]` output that was cut off mid-list."""
    decoder = json.JSONDecoder()
    start = raw.find("[")
    if start < 0:
        return []
    claims: list[str] = []
    pos = start + 1
    while True:
        pos = len(raw) - len(raw[pos:].lstrip(" \n\t,"))
        try:
            value, pos = decoder.raw_decode(raw, pos)
        except json.JSONDecodeError:
            return claims
        if isinstance(value, str) and value.strip():
            claims.append(value)


def _common_prefix(rows: Sequence[Sequence[int]]) -> int:
    shortest = min(len(r) for r in rows)
    n = 0
    while n < shortest and all(r[n] == rows[0][n] for r in rows):
        n += 1
    return n


class TransformersBackend:
    """Runs a pinned model with transformers on CPU (or GPU when `device` says so)."""

    def __init__(self, manifest: ModelManifest, *, device: str = "cpu", batch_size: int = 16):
        try:
            import outlines
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise MissingExtraError(str(e.name), "pip install offline-recall") from e

        folder = model_dir(manifest)
        self._manifest = manifest
        self._device = device
        self._batch_size = batch_size
        self._prompts = load_prompts(manifest.prompt_version)
        # Engine objects stay untyped here: their stubs do not describe these call patterns.
        self._tokenizer: Any = cast(
            Any,
            AutoTokenizer.from_pretrained(folder, local_files_only=True, trust_remote_code=False),
        )
        with quiet_loading():
            model = AutoModelForCausalLM.from_pretrained(
                folder,
                local_files_only=True,
                trust_remote_code=False,
                use_safetensors=True,
                dtype=torch.float32,
            )
        self._model: Any = cast(Any, model).to(device).eval()
        self._yes = self._single_token(self._prompts.judge.yes)
        self._no = self._single_token(self._prompts.judge.no)
        self._claims_type = claim_list_type(manifest.decoding.max_claims)
        self._generator = outlines.Generator(
            outlines.from_transformers(self._model, self._tokenizer), self._claims_type
        )
        judge_overhead = len(self._render(self._prompts.judge_messages("", "")))
        extract_overhead = len(self._render(self._prompts.extract_messages("")))
        reserve = manifest.decoding.max_new_tokens  # a claim is at most one extraction long
        self._info = BackendInfo(
            fingerprint=manifest.fingerprint,
            prompt_version=manifest.prompt_version,
            threshold=manifest.threshold,
            context_budget=manifest.context_window - judge_overhead - reserve,
            text_budget=manifest.context_window - extract_overhead - reserve,
        )

    @property
    def info(self) -> BackendInfo:
        return self._info

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def _single_token(self, word: str) -> int:
        ids = self._tokenizer(word, add_special_tokens=False)["input_ids"]
        if len(ids) != 1:
            raise ModelError(f"answer word {word!r} is {len(ids)} tokens for this tokenizer")
        return int(ids[0])

    def _render(self, messages: list[Message], *, tokenize: bool = True) -> Any:
        text = self._tokenizer.apply_chat_template(
            messages,
            chat_template=self._manifest.chat_template,
            tokenize=False,
            add_generation_prompt=True,
        )
        assert isinstance(text, str)
        if not tokenize:
            return text
        return self._tokenizer(text, add_special_tokens=False)["input_ids"]

    # Extraction -----------------------------------------------------------------------

    def extract_claims(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        # One prompt at a time: an item's claims must not depend on what it was batched with.
        return [self._extract_one(t) for t in texts]

    def _extract_one(self, text: str) -> list[str] | Failed:
        prompt = self._render(self._prompts.extract_messages(text), tokenize=False)
        limit = self._manifest.decoding.max_new_tokens
        raw = str(self._generator(prompt, max_new_tokens=limit, do_sample=False))
        try:
            parsed = self._claims_type.model_validate(json.loads(raw))
            claims: list[str] = parsed.claims  # type: ignore[attr-defined]
            return claims
        except (json.JSONDecodeError, ValidationError):
            # The grammar only lets the output stop early by running into the token bound,
            # which a small model does by repeating itself inside one claim. The claims it
            # finished before that stand; the runaway one is dropped.
            finished = finished_claims(raw)
            if finished:
                return finished
            return Failed(f"claim extraction did not finish a single claim in {limit} tokens")

    # Attribution ----------------------------------------------------------------------

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) per pair; each context is run once and its cache reused for its claims."""
        by_context: dict[str, list[int]] = {}
        for i, (context, _) in enumerate(pairs):
            by_context.setdefault(context, []).append(i)
        p_yes = [0.0] * len(pairs)
        for context, indices in by_context.items():
            claims = [pairs[i][1] for i in indices]
            for i, p in zip(indices, self._judge_context(context, claims), strict=True):
                p_yes[i] = p
        return p_yes

    def _judge_context(self, context: str, claims: list[str]) -> list[float]:
        import torch

        rows: list[list[int]] = [
            self._render(self._prompts.judge_messages(context, c)) for c in claims
        ]
        # The shared prefix is taken at token level; each row keeps at least one own token.
        prefix = min(_common_prefix(rows), min(len(r) for r in rows) - 1)
        with torch.inference_mode():
            cache = None
            if prefix > 0 and len(rows) > 1:
                head = torch.tensor([rows[0][:prefix]], device=self._device)
                cache = self._model(input_ids=head, use_cache=True).cache
            else:
                prefix = 0
            step = max(1, min(self._batch_size, _BATCH_TOKENS // max(1, prefix)))
            out: list[float] = []
            for start in range(0, len(rows), step):
                batch = [r[prefix:] for r in rows[start : start + step]]
                out.extend(self._judge_suffixes(cache, prefix, batch))
        return out

    def _judge_suffixes(self, cache: Any, prefix: int, suffixes: list[list[int]]) -> list[float]:
        import torch

        width = max(len(s) for s in suffixes)
        pad = self._tokenizer.pad_token_id or 0
        ids = torch.full((len(suffixes), width), pad, dtype=torch.long)
        mask = torch.ones((len(suffixes), prefix + width), dtype=torch.long)
        for row, suffix in enumerate(suffixes):
            ids[row, : len(suffix)] = torch.tensor(suffix)
            mask[row, prefix + len(suffix) :] = 0  # right padding: real tokens never see it
        kwargs: dict[str, Any] = {
            "input_ids": ids.to(self._device),
            "attention_mask": mask.to(self._device),
        }
        if cache is not None:
            batch_cache = copy.deepcopy(cache)
            batch_cache.batch_repeat_interleave(len(suffixes))
            kwargs["cache"] = batch_cache
        logits = self._model(**kwargs).logits
        last = torch.tensor([len(s) - 1 for s in suffixes])
        answer = logits[torch.arange(len(suffixes)), last][:, [self._yes, self._no]]
        probs: torch.Tensor = torch.softmax(answer.float(), dim=-1)[:, 0]
        return [float(p) for p in probs.cpu()]
