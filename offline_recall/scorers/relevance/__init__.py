"""Context relevance: how relevant and useful the retrieved context was for the response.

Each chunk -> a relevance level (high, medium, low, none) against the question and response,
with the probability of each (a judge profile over the model's four-way answer and cheap
signals), and whether the response used it -> the reference's score: the mean level weight,
less penalties for highly relevant chunks left unused and for what the response states that no
chunk holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engines import Engine
from ...engines.manifests import DEFAULT_MODEL, ModelManifest
from ...judging.profile import JudgeProfile
from ..base import ScorerKind, Status
from ..build import create_scorer
from . import prompts
from .options import ContextRelevanceOptions, Penalties
from .prompts import Target
from .result import ChunkRelevance, Level, LevelProbabilities, RelevanceResult
from .score import relevance_score
from .scorer import ID, ContextRelevanceScorer


def _labelled_statement(record: Mapping[str, Any]) -> Target:
    """A labelled relevance row's statement: its question and response (either optional, one
    required)."""
    question, response = record.get("question"), record.get("response", record.get("answer"))
    for name, value in (("question", question), ("response", response)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string")
    if not (question or "").strip() and not (response or "").strip():
        raise ValueError("give a question or a response")
    return Target(question, response)


KIND = ScorerKind(
    scorer=ContextRelevanceScorer,
    measure="relevance",
    unit="chunks",
    positive="relevant",
    prompts=prompts.__name__,
    labelled_statement=_labelled_statement,
    statuses=(Status.NO_CONTEXT,),
    reads=("question", "output", "context"),
    levels=tuple(level.value for level in Level),
)


def create_context_relevance_scorer(
    model: str | ModelManifest | Engine = DEFAULT_MODEL,
    options: ContextRelevanceOptions | None = None,
    *,
    engine: str = "transformers",
    engine_options: dict[str, Any] | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
) -> ContextRelevanceScorer:
    """A context relevance scorer on a local, pinned model.

    The arguments of `create_context_precision_scorer`; `options` says where the context comes
    from (required: construction fails without `context` or `context_extractor`, or with an
    empty `context`) and may set `penalties`. A run without context chunks scores the full
    scale, as in the reference.
    """
    if options is None:
        options = ContextRelevanceOptions()  # raises: a context source is required
    scorer = create_scorer(
        KIND,
        model,
        options,
        engine=engine,
        engine_options=engine_options,
        profile=profile,
        prompt_version=prompt_version,
    )
    assert isinstance(scorer, ContextRelevanceScorer)
    return scorer


__all__ = [
    "ID",
    "KIND",
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
