"""The Backend protocol: batch-first claim extraction and yes/no judgment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field


class BackendInfo(BaseModel):
    """What a backend tells the pipeline about the model it runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fingerprint: str = Field(description="Identifies weights, tokenizer and chat template")
    prompt_version: str
    threshold: float = Field(ge=0.0, le=1.0, description="supported = P(yes) >= threshold")
    context_budget: int = Field(gt=1, description="Tokens one context chunk may take")
    text_budget: int = Field(gt=1, description="Tokens one ground-truth piece may take")
    window: int = Field(default=16, gt=0, description="Items a bulk run sends per batch")


class Failed(NamedTuple):
    """One input of a batch that could not be processed, with the reason."""

    message: str


@runtime_checkable
class Backend(Protocol):
    """A model engine. Batch-first: each call takes many inputs and answers each in order."""

    @property
    def info(self) -> BackendInfo: ...

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` under the model's tokenizer."""
        ...

    def extract_claims(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        """The atomic claims of each text, in order; a text that fails gets a `Failed`."""
        ...

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) that each (context, claim) pair's context supports its claim.

        Pairs sharing a context may be grouped to reuse that context's cache.
        """
        ...
