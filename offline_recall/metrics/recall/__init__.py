"""Context recall: how much of the ground truth the retrieved context supports.

Ground truth -> atomic claims (the model, under a JSON grammar) -> a verdict per claim against
each chunk (a judge profile over the model's yes/no and cheap signals) -> the supported share.
The claim machinery is the kit's claims family (`scorer/claims/`), which faithfulness is too.
"""

from __future__ import annotations

from ...scorer.claims import ClaimCacheLike, ClaimVerdict, dedupe_claims
from ...scorer.construction import ClaimChoices, scorer_factory
from .result import RecallResult
from .scorer import ID, ContextRecallOptions, ContextRecallScorer

create_context_recall_scorer = scorer_factory(
    ContextRecallScorer,
    ContextRecallOptions,
    ClaimChoices,
    """A context recall scorer on a local, pinned model.

    `model` is a bundled model's name, a manifest (or its path), or a ready `Engine`; the
    keywords (`ClaimChoices`) say the rest: `engine` (default "auto": the model's own engine) and
    `engine_options` say how a named model runs; `claim_cache` keeps extracted claims across
    runs; `profile` and `prompt_version` override what the model's manifest and calibration
    would choose; `judge` names a second pinned model (a fine-tuned verifier) that judges the
    claims on `judge_engine` (default: `engine`) while `model` extracts them. `options` says
    where the context comes from (required: construction fails without `context` or
    `context_extractor`).
    """,
)


__all__ = [
    "ID",
    "ClaimCacheLike",
    "ClaimVerdict",
    "ContextRecallOptions",
    "ContextRecallScorer",
    "RecallResult",
    "create_context_recall_scorer",
    "dedupe_claims",
]
