"""A pinned model's prompts as the engines see them: chat text and token ids."""

from __future__ import annotations

from typing import Any

from ..errors import ModelError
from ..models import ModelManifest
from ..prompts import Message, load_prompts
from .base import BackendInfo


class ChatPrompts:
    """Renders the prompt set with the manifest's chat template and tokenizes it.

    Every engine goes through this, so all of them see the same tokens for the same pair.
    """

    def __init__(self, tokenizer: Any, manifest: ModelManifest) -> None:
        self._tokenizer = tokenizer
        self._manifest = manifest
        self.prompts = load_prompts(manifest.prompt_version)
        self.yes_id = self._single_token(self.prompts.judge.yes)
        self.no_id = self._single_token(self.prompts.judge.no)

    def tokens(self, text: str) -> list[int]:
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def render(self, messages: list[Message]) -> str:
        text = self._tokenizer.apply_chat_template(
            messages,
            chat_template=self._manifest.chat_template,
            tokenize=False,
            add_generation_prompt=True,
        )
        assert isinstance(text, str)
        return text

    def extract_text(self, ground_truth: str) -> str:
        """The chat text asking for the claims of a ground truth."""
        return self.render(self.prompts.extract_messages(ground_truth))

    def judge_ids(self, context: str, claim: str) -> list[int]:
        """The token ids of the yes/no prompt for one pair, context first."""
        return self.tokens(self.render(self.prompts.judge_messages(context, claim)))

    def info(self, window: int) -> BackendInfo:
        """What the pipeline needs to know, with token budgets that leave room for the prompt
        around a text and for a claim (at most one extraction long)."""
        m = self._manifest
        reserve = m.decoding.max_new_tokens
        judge_overhead = len(self.judge_ids("", ""))
        extract_overhead = len(self.tokens(self.extract_text("")))
        return BackendInfo(
            fingerprint=m.fingerprint,
            prompt_version=m.prompt_version,
            threshold=m.threshold,
            context_budget=m.context_window - judge_overhead - reserve,
            text_budget=m.context_window - extract_overhead - reserve,
            window=window,
        )

    def _single_token(self, word: str) -> int:
        ids = self.tokens(word)
        if len(ids) != 1:
            raise ModelError(f"answer word {word!r} is {len(ids)} tokens for this tokenizer")
        return ids[0]
