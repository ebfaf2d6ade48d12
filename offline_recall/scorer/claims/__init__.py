"""Claims of a text, each judged against the retrieved context: what context recall (the ground
truth's claims) and faithfulness (the output's claims) share.

The claim prompt sets (`prompts/`, one `<version>.toml` each), extraction under a JSON grammar
with the prompt set's rules and a claim cache (`extraction.py`, `rules.py`), the scorer on
claims both subclass (`scorer.py`), its verdicts and result (`result.py`) and its score and
reason (`score.py`).
"""

from __future__ import annotations

from ..pipeline import ClaimCacheLike
from .extraction import ClaimExtractor
from .result import ClaimsResult, ClaimVerdict
from .rules import dedupe_claims
from .score import claim_score, explain_claims
from .scorer import ClaimItem, ClaimScorer, ClaimUnit

__all__ = [
    "ClaimCacheLike",
    "ClaimExtractor",
    "ClaimItem",
    "ClaimScorer",
    "ClaimUnit",
    "ClaimVerdict",
    "ClaimsResult",
    "claim_score",
    "dedupe_claims",
    "explain_claims",
]
