"""Context relevance's options: the reference's context sources and scale, and its penalties."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ...scorer.inputs import ContextOptions


class Penalties(BaseModel):
    """What the score loses, as in the reference: per highly relevant chunk the response did not
    use, and per piece of missing context up to a bound."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unused_high_relevance_context: float = Field(
        default=0.1, ge=0.0, allow_inf_nan=False, description="Per unused high-relevance chunk"
    )
    missing_context_per_item: float = Field(
        default=0.15, ge=0.0, allow_inf_nan=False, description="Per piece of missing context"
    )
    max_missing_context_penalty: float = Field(
        default=0.5, ge=0.0, allow_inf_nan=False, description="Bound on the missing-context penalty"
    )


class ContextRelevanceOptions(ContextOptions):
    """Context relevance's options: `context` or `context_extractor` (or both), `scale`, and
    the `penalties` (the reference's defaults unless given)."""

    metric: ClassVar[str] = "context relevance"

    penalties: Penalties = Penalties()
