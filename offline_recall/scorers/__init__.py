"""Scorers by id: one package each (its prompts, rules and result), one registry line each.

The ids are the reference scorers' (Mastra's), so `result.scores[scorer.id]` reads the same.
Installed packages add scorers through the entry-point group `offline_recall.scorers` (see
plugins.py); they are looked for the first time the registry is listed or asked for an id it
does not hold.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from . import faithfulness, precision, recall, relevance
from .base import ScoreResult, ScorerKind
from .plugins import Registry

SCORERS = Registry(
    {
        recall.KIND.id: recall.KIND,
        precision.KIND.id: precision.KIND,
        faithfulness.KIND.id: faithfulness.KIND,
        relevance.KIND.id: relevance.KIND,
    }
)


def scorer_kind(scorer_id: str) -> ScorerKind:
    """The registered scorer `scorer_id`; an unknown id lists the known ones."""
    kind = SCORERS.get(scorer_id)
    if kind is None:
        raise ConfigurationError(f"unknown scorer {scorer_id!r}; known: {', '.join(SCORERS)}")
    return kind


def result_type(scorer_id: str) -> type[ScoreResult]:
    """The result type of scorer `scorer_id`, for reading recorded results back."""
    return scorer_kind(scorer_id).result_type


__all__ = ["SCORERS", "Registry", "ScorerKind", "result_type", "scorer_kind"]
