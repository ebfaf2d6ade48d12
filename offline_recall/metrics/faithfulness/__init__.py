"""Faithfulness: how much of an output the retrieved context supports.

Output -> atomic claims (the claim extraction context recall uses: the model under a JSON
grammar, the same prompt sets and rules) -> a verdict per claim against each chunk (context
recall's judge and judge profiles: the judged units are the same, a claim against a chunk) ->
the supported share. The claim machinery is the kit's claims family (`scorer/claims/`), which
context recall is too.
"""

from __future__ import annotations

from ...scorer.construction import ClaimChoices, scorer_factory
from .scorer import ID, FaithfulnessOptions, FaithfulnessResult, FaithfulnessScorer

create_faithfulness_scorer = scorer_factory(
    FaithfulnessScorer,
    FaithfulnessOptions,
    ClaimChoices,
    """A faithfulness scorer on a local, pinned model: the arguments of
    `create_context_recall_scorer` (one engine and one claim cache can serve both).""",
)


__all__ = [
    "ID",
    "FaithfulnessOptions",
    "FaithfulnessResult",
    "FaithfulnessScorer",
    "create_faithfulness_scorer",
]
