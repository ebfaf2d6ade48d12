"""Context relevance: how relevant and useful the retrieved context was for the response.

Each chunk -> a relevance level (high, medium, low, none) against the question and response,
with the probability of each (a judge profile over the model's four-way answer and cheap
signals), and whether the response used it -> the reference's score: the mean level weight,
less penalties for highly relevant chunks left unused and for what the response states that no
chunk holds.
"""

from __future__ import annotations

from ...scorer.construction import EngineChoices, scorer_factory
from .options import ContextRelevanceOptions, Penalties
from .prompts import Target
from .result import ChunkRelevance, Level, LevelProbabilities, RelevanceResult
from .score import relevance_score
from .scorer import ID, ContextRelevanceScorer

create_context_relevance_scorer = scorer_factory(
    ContextRelevanceScorer,
    ContextRelevanceOptions,
    EngineChoices,
    """A context relevance scorer on a local, pinned model.

    The arguments of `create_context_precision_scorer`; `options` says where the context comes
    from (required: construction fails without `context` or `context_extractor`, or with an
    empty `context`) and may set `penalties`. A run without context chunks scores the full
    scale, as in the reference.
    """,
)


__all__ = [
    "ID",
    "ChunkRelevance",
    "ContextRelevanceOptions",
    "ContextRelevanceScorer",
    "Level",
    "LevelProbabilities",
    "Penalties",
    "RelevanceResult",
    "Target",
    "create_context_relevance_scorer",
    "relevance_score",
]
