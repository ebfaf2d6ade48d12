"""The Engine protocol: generic, batch-first capabilities of a model, and what it says it is.

An engine knows chat prompts, JSON schemas and answer words, never claims, chunks or scores:
a scorer builds its prompts and reads what the engine returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Message = Mapping[str, str]
"""One chat message: `{"role": ..., "content": ...}`."""

Done = Callable[[int], None]
"""Told how many more prompts of a call have finished, as they finish (for progress)."""


@dataclass(frozen=True)
class Prompt:
    """A chat prompt, rendered by the model's chat template.

    `shared` is a start of the last message's content that other prompts of a batch share
    (a context ahead of the question about it): an engine may compute the rendered text up to
    there once for all of them. It never changes what is computed for one prompt.
    `pair` is, for a yes/no question about a pair of texts, the (evidence, statement) it
    asks about: an engine that classifies a pair rather than reading a chat (a cross-encoder)
    reads it; chat engines ignore it.
    `fields` are the texts the prompt was made from, in order; engines ignore them, a test
    double answers from them.
    """

    messages: tuple[Message, ...]
    shared: str = ""
    pair: tuple[str, str] | None = field(default=None, compare=False)
    fields: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class JsonOutput:
    """What constrained generation writes: JSON valid for `schema` (a pydantic model's JSON
    schema), at most `max_tokens` tokens of it."""

    schema: type[BaseModel]
    max_tokens: int


class Failed(NamedTuple):
    """One input of a batch that could not be processed, with the reason."""

    message: str
    transient: bool = False
    """The engine failed for a while (a server's 5xx, a timeout), not the input: a resumed
    run tries the row again."""


class ScorerDefaults(BaseModel):
    """What a scorer runs with on a model unless a run says otherwise: a manifest's
    `[scorers.<scorer id>]` table. The engine carries it and never reads it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_version: str | None = Field(
        default=None, description="The scorer's prompt set; None: the scorer's latest"
    )
    max_items: int | None = Field(
        default=None, gt=0, description="Bound on the list the scorer generates (claims)"
    )


class EngineIdentity(BaseModel):
    """What an engine runs: enough to tell whether two runs used the same model the same way,
    and the scorers' defaults its model's manifest names (for scorers built on the engine)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    engine: str = Field(description="The engine's registry name")
    fingerprint: str = Field(description="Identifies weights, tokenizer and chat template")
    dtype: str = Field(description="The precision the weights run in")
    context_window: int = Field(gt=1, description="Tokens a prompt and its answer may take")
    scorers: dict[str, ScorerDefaults] = Field(
        default_factory=dict, description="The manifest's defaults by scorer id"
    )
    prompt_version: str | None = Field(
        default=None,
        description="A manifest's top-level prompt version, the older spelling of a scorer's "
        "own: the default of the scorers that follow it (see ScorerDefinition.follows_manifest)",
    )


@runtime_checkable
class Engine(Protocol):
    """A model engine. Batch-first: each call takes many prompts and answers each in order."""

    @property
    def identity(self) -> EngineIdentity: ...

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` under the model's tokenizer."""
        ...

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens of `prompt` rendered by the chat template, ready for the answer."""
        ...

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        """Greedy text for each prompt, constrained to `output_type`'s JSON schema.

        A text cut off by `max_tokens` is returned as it stands; the caller decides what of it
        stands. An engine must give each prompt the text it would get alone.
        """
        ...

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        """For each prompt, the probability of each one-token answer word, renormalised over
        `answers` (they sum to 1), from one forward pass.

        Both calls tell `done`, if given, as prompts finish (an engine that finishes a batch
        at once tells it once)."""
        ...

    def close(self) -> None:
        """Release the engine's processes and memory now rather than at exit."""
        ...
