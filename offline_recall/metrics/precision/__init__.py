"""Context precision: whether the retrieved chunks are relevant to the expected answer, and
ranked first.

Each chunk -> a relevance verdict against the question and expected answer (a judge profile
over the model's yes/no and cheap signals) -> mean average precision in retrieved order.
"""

from __future__ import annotations

from ...scorer.construction import EngineChoices, scorer_factory
from .prompts import Target
from .result import ChunkVerdict, PrecisionResult
from .score import average_precision
from .scorer import ID, ContextPrecisionOptions, ContextPrecisionScorer

create_context_precision_scorer = scorer_factory(
    ContextPrecisionScorer,
    ContextPrecisionOptions,
    EngineChoices,
    """A context precision scorer on a local, pinned model.

    The arguments of `create_context_recall_scorer` but those for claims (`EngineChoices`:
    `engine`, `engine_options`, `profile`, `prompt_version`): `model` is a bundled model's
    name, a manifest (or its path), or a ready `Engine` (one engine can serve both scorers);
    `options` says where the context comes from (required: construction fails without
    `context` or `context_extractor`, or with an empty `context`). Precision asks the model
    its own relevance question: a model's own judge prompt (for claims) is not used.
    """,
)


__all__ = [
    "ID",
    "ChunkVerdict",
    "ContextPrecisionOptions",
    "ContextPrecisionScorer",
    "PrecisionResult",
    "Target",
    "average_precision",
    "create_context_precision_scorer",
]
