"""Context recall's own numbers and reasons, computed from verdicts in Python, never by the
model (the score itself is the supported share, `claims.score.claim_score`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...scorer.claims.result import ClaimVerdict


def expected_recall(verdicts: Sequence[ClaimVerdict], scale: float) -> float | None:
    """The mean of the claims' probabilities, times scale, at six decimals; None for no
    claims. Where the score counts each claim as in or out at the threshold, this keeps how
    sure the judge is, so it moves with partial support rather than in steps."""
    if not verdicts:
        return None
    return round(math.fsum(v.probability for v in verdicts) / len(verdicts) * scale, 6)


NO_GROUND_TRUTH_REASON = (
    "The score is 0 because the run has no ground truth to compare the context against."
)
NO_CLAIMS_REASON = "The score is 0 because no claims could be extracted from the ground truth."
