"""Chat prompts as a pinned model sees them: the manifest's template rendered, then token ids.

Every local engine goes through this, so all of them see the same tokens for the same prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ModelError
from .base import EngineIdentity, Message, Prompt
from .manifests import ModelManifest

FOLD_SEPARATOR = "\n\n"
"""Between the system instructions and the first user turn they are folded into."""


def folded(messages: Sequence[Message]) -> list[dict[str, str]]:
    """The messages with any system turn moved to the start of the first user turn, for a
    template that refuses (or silently drops) a system turn."""
    system = [m["content"] for m in messages if m["role"] == "system" and m["content"]]
    rest = [dict(m) for m in messages if m["role"] != "system"]
    if system:
        for m in rest:
            if m["role"] == "user":
                m["content"] = FOLD_SEPARATOR.join([*system, m["content"]])
                break
    return rest


def render_chat(
    tokenizer: Any,
    template: str,
    messages: Sequence[Message],
    *,
    options: Mapping[str, Any] | None = None,
) -> str:
    """`messages` rendered by `template`, ready for the model's answer."""
    text = tokenizer.apply_chat_template(
        [dict(m) for m in messages],
        chat_template=template,
        tokenize=False,
        add_generation_prompt=True,
        **dict(options or {}),
    )
    if not isinstance(text, str):
        raise ModelError("the chat template did not render to text")
    return text


class ChatTemplate:
    """Renders prompts with the manifest's chat template and tokenizes them: a system turn
    folded into the first user turn where the manifest says so, the template's options (a
    thinking switch) and the answer prefix applied."""

    def __init__(self, tokenizer: Any, manifest: ModelManifest) -> None:
        self._tokenizer = tokenizer
        self._template = manifest.chat_template
        self._fold = manifest.system_turn == "fold"
        self._options = dict(manifest.template_options)
        self._prefix = manifest.answer_prefix
        self._answers = manifest.answers

    def tokens(self, text: str) -> list[int]:
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def render(self, prompt: Prompt) -> str:
        messages = folded(prompt.messages) if self._fold else prompt.messages
        text = render_chat(self._tokenizer, self._template, messages, options=self._options)
        return text + self._prefix

    def ids(self, prompt: Prompt) -> list[int]:
        """The token ids of the rendered prompt."""
        return self.tokens(self.render(prompt))

    def split(self, prompt: Prompt) -> tuple[list[int], int]:
        """The prompt's token ids and how many of them are its shared head (0 if none).

        The head is the rendered text up to the end of `prompt.shared`, tokenized on its own;
        where the whole prompt's tokens start differently (a token across the seam), the head
        is the part they agree on. It depends on this prompt alone, never on its batch.
        """
        text = self.render(prompt)
        ids = self.tokens(text)
        if not prompt.shared:
            return ids, 0
        content = prompt.messages[-1]["content"]
        start = text.rfind(content)
        if start < 0 or not content.startswith(prompt.shared):
            return ids, 0
        head = self.tokens(text[: start + len(prompt.shared)])
        agree = 0
        for a, b in zip(head, ids, strict=False):
            if a != b:
                break
            agree += 1
        return ids, min(agree, len(ids) - 1)

    def answer_token(self, word: str) -> int:
        """The one token of an answer word; a word of several tokens cannot be read off a
        single forward pass."""
        ids = self.tokens(word)
        if len(ids) != 1:
            raise ModelError(f"answer word {word!r} is {len(ids)} tokens for this tokenizer")
        return ids[0]

    def answer_ids(self, word: str) -> tuple[int, ...]:
        """The tokens read as an answer word: its spellings pinned in the manifest, else the
        word as one token."""
        pinned = None if self._answers is None else self._answers.ids(word)
        return pinned if pinned is not None else (self.answer_token(word),)


class PinnedEngine:
    """What the engines that run a pinned model's own weights share: their identity, and
    prompts rendered with the manifest's chat template."""

    def __init__(self, name: str, manifest: ModelManifest, chat: ChatTemplate, dtype: str) -> None:
        self.chat = chat
        self._identity = manifest.engine_identity(name, dtype)

    @property
    def identity(self) -> EngineIdentity:
        return self._identity

    def count_tokens(self, text: str) -> int:
        return len(self.chat.tokens(text))

    def prompt_tokens(self, prompt: Prompt) -> int:
        return len(self.chat.ids(prompt))
