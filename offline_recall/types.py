"""The values that flow through the pipeline: runs in, verdicts and results out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import ConfigurationError


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Status(StrEnum):
    """How scoring an item ended."""

    OK = "ok"
    """Claims were extracted and judged; the score is their supported share."""
    NO_GROUND_TRUTH = "no_ground_truth"
    """The run had no ground truth; score 0 and no model call."""
    NO_CLAIMS = "no_claims"
    """The ground truth yielded no claims; score 0."""
    ERROR = "error"
    """The item could not be scored; `error` says why and `score` is None."""


class ScorerRun(BaseModel):
    """One thing to score: what went in, what came out, and the labelled answer.

    `ground_truth` may also be given as `groundTruth`, the reference scorer's name.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    input: Any = None
    output: Any = None
    ground_truth: Any = Field(default=None, alias="groundTruth")


ContextExtractor = Callable[[Any, Any], Sequence[str]]
"""Pulls the retrieved context out of a run's (input, output), e.g. tool results of an agent."""


class ContextRecallOptions(BaseModel):
    """Where the context comes from and how the score is scaled.

    Give `context` (the retrieved chunks, the same for every run), `context_extractor`
    (a function of the run's input and output), or both: the extractor is then used only for
    agent-shaped runs. `scale` multiplies the score; 0 or None means 1.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    context: list[str] | None = None
    context_extractor: ContextExtractor | None = None
    scale: float | None = 1

    @model_validator(mode="after")
    def _needs_a_context_source(self) -> ContextRecallOptions:
        if self.context is None and self.context_extractor is None:
            raise ConfigurationError(
                "context recall needs `context` (a list of strings) or `context_extractor`"
            )
        if self.context is not None and len(self.context) == 0:
            raise ConfigurationError("`context` is an empty list; give at least one chunk")
        if self.scale is not None and self.scale < 0:
            raise ConfigurationError(f"`scale` must be positive, got {self.scale}")
        return self

    @property
    def effective_scale(self) -> float:
        return self.scale or 1.0


class Verdict(_Frozen):
    """The judgment of one claim against the context."""

    claim: str
    supported: bool
    p_yes: float = Field(
        ge=0.0,
        le=1.0,
        description="The judge's probability that the claim is supported, max over chunks: "
        "the model's P(yes) under the plain rule, else the judge profile's combination",
    )
    chunk_index: int | None = Field(
        default=None, description="Index of the context chunk that supports the claim, if any"
    )


class RecallResult(_Frozen):
    """The outcome of scoring one run."""

    score: float | None = Field(description="In [0, scale]; None only when status is error")
    reason: str
    status: Status
    error: str | None = None
    verdicts: tuple[Verdict, ...] = ()
    model_fingerprint: str
    prompt_version: str
    library_version: str

    @property
    def claims(self) -> list[str]:
        return [v.claim for v in self.verdicts]
