"""Scorers by id: one class each, in a package of its own (its prompts, rules and result), and
one entry each in builtins.py.

A scorer's class is its definition (see declaration.py): the registry maps each id to it, and
the command line, reports, run specs and calibration read it there. A built-in scorer's module
is imported the first time its class is asked for, so listing the ids costs nothing. The ids
are the reference scorers' (Mastra's), so `result.scores[scorer.id]` reads the same. Installed
packages add scorers through the entry-point group `offline_recall.scorers` (see plugins.py);
they are looked for the first time the registry is listed or asked for an id it does not hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import ConfigurationError
from .builtins import BUILTINS, RECALL
from .plugins import Registry

if TYPE_CHECKING:
    from .pipeline import ScorerClass
    from .results import ScoreResult

SCORERS = Registry({scorer_id: found.target for scorer_id, found in BUILTINS.items()})


def scorer_kind(scorer_id: str) -> ScorerClass:
    """The class of the registered scorer `scorer_id`; an unknown id lists the known ones."""
    found = SCORERS.get(scorer_id)
    if found is None:
        raise ConfigurationError(f"unknown scorer {scorer_id!r}; known: {', '.join(SCORERS)}")
    return found


def reads_context(scorer_ids: Iterable[str]) -> bool:
    """Whether any of the scorers reads a run's context: a dataset scored with them then needs
    a context field, and each of its rows a context."""
    return any(scorer_kind(s).reads_context() for s in scorer_ids)


def result_type(scorer_id: str) -> type[ScoreResult]:
    """The result type of scorer `scorer_id`, for reading recorded results back."""
    return scorer_kind(scorer_id).result_type


__all__ = ["RECALL", "SCORERS", "Registry", "reads_context", "result_type", "scorer_kind"]
