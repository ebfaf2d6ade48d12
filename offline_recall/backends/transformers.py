"""The transformers backend: Outlines-constrained extraction, cached-prefix yes/no verdicts."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..errors import MissingExtraError
from ..models import ModelManifest, model_dir, quiet_loading
from .base import BackendInfo, Failed
from .chat import ChatPrompts
from .claims import claim_list_type, parse_claims, settle_claims

if TYPE_CHECKING:
    import torch

# Keys and values of a cached prefix, per token, may use this many tokens of a verdict batch.
_BATCH_TOKENS = 16_384


def _common_prefix(rows: Sequence[Sequence[int]]) -> int:
    shortest = min(len(r) for r in rows)
    n = 0
    while n < shortest and all(r[n] == rows[0][n] for r in rows):
        n += 1
    return n


class TransformersBackend:
    """Runs a pinned model with transformers on CPU (or GPU when `device` says so)."""

    def __init__(
        self,
        manifest: ModelManifest,
        *,
        device: str = "cpu",
        batch_size: int = 16,
        reuse_prefix: bool = True,
    ) -> None:
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
        self._reuse_prefix = reuse_prefix
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
        self._chat = ChatPrompts(self._tokenizer, manifest)
        self._claims_type = claim_list_type(manifest.decoding.max_claims)
        self._generator = outlines.Generator(
            outlines.from_transformers(self._model, self._tokenizer), self._claims_type
        )
        self._info = self._chat.info(window=16)

    @property
    def info(self) -> BackendInfo:
        return self._info

    @property
    def model(self) -> Any:
        """The loaded transformers model (for measurements of the bare engine)."""
        return self._model

    def judge_prompt(self, context: str, claim: str) -> list[int]:
        """The token ids of the yes/no prompt for one pair, context first."""
        return self._chat.judge_ids(context, claim)

    def count_tokens(self, text: str) -> int:
        return len(self._chat.tokens(text))

    # Extraction -----------------------------------------------------------------------

    def extract_claims(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        # One prompt at a time: an item's claims must not depend on what it was batched with.
        return [self._extract_one(t) for t in texts]

    def _extract_one(self, text: str) -> list[str] | Failed:
        prompt = self._chat.extract_text(text)
        limit = self._manifest.decoding.max_new_tokens
        raw = self._generator(prompt, max_new_tokens=limit, do_sample=False)
        found = parse_claims(str(raw), self._claims_type, limit)
        return settle_claims(text, found, self._chat.prompts.extract)

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

        rows = [self.judge_prompt(context, c) for c in claims]
        # Shortest first, so a batch's rows are alike in length and pad little.
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        rows = [rows[i] for i in order]
        # The shared prefix is taken at token level; each row keeps at least one own token.
        prefix = min(_common_prefix(rows), len(rows[0]) - 1)
        if not self._reuse_prefix or len(rows) == 1:
            prefix = 0
        with torch.inference_mode():
            cache = None
            if prefix > 0:
                head = torch.tensor([rows[0][:prefix]], device=self._device)
                cache = self._model(input_ids=head, use_cache=True).past_key_values
            step = max(1, min(self._batch_size, _BATCH_TOKENS // max(1, prefix)))
            p_yes: list[float] = []
            for start in range(0, len(rows), step):
                batch = [r[prefix:] for r in rows[start : start + step]]
                p_yes.extend(self._judge_suffixes(cache, prefix, batch))
        out = [0.0] * len(rows)
        for i, p in zip(order, p_yes, strict=True):
            out[i] = p
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
            kwargs["past_key_values"] = batch_cache
        logits = self._model(**kwargs).logits
        last = torch.tensor([len(s) - 1 for s in suffixes])
        answer = logits[torch.arange(len(suffixes)), last][:, [self._chat.yes_id, self._chat.no_id]]
        probs: torch.Tensor = torch.softmax(answer.float(), dim=-1)[:, 0]
        return [float(p) for p in probs.cpu()]
