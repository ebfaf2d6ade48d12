"""The score and the reason, computed from verdicts in Python, never by the model."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..base import round_half_up
from .result import ClaimVerdict


def recall_score(verdicts: Sequence[ClaimVerdict], scale: float) -> float:
    """Share of supported claims, clamped to 1, times scale, rounded half-up; 0 for no claims."""
    if not verdicts:
        return 0.0
    supported = sum(v.supported for v in verdicts)
    return round_half_up(min(1.0, supported / len(verdicts)) * scale)


def expected_recall(verdicts: Sequence[ClaimVerdict], scale: float) -> float | None:
    """The mean of the claims' probabilities, times scale, at six decimals; None for no
    claims. Where the score counts each claim as in or out at the threshold, this keeps how
    sure the judge is, so it moves with partial support rather than in steps."""
    if not verdicts:
        return None
    return round(math.fsum(v.probability for v in verdicts) / len(verdicts) * scale, 6)


def _quote(verdict: ClaimVerdict) -> str:
    where = f" (context chunk {verdict.chunk_index})" if verdict.chunk_index is not None else ""
    return f'"{verdict.claim}"{where}'


def explain(
    verdicts: Sequence[ClaimVerdict],
    score: float,
    *,
    claims: str = "ground-truth claims",
    found_label: str = "Found",
    missing_label: str = "Missing",
) -> str:
    """A readable reason: the score, the claims found with their chunk, the claims missing
    (`claims` names what was counted; the labels head the two lists)."""
    found = [v for v in verdicts if v.supported]
    missing = [v for v in verdicts if not v.supported]
    parts = [
        f"The score is {score:g} because {len(found)} of {len(verdicts)} {claims} "
        "are supported by the context."
    ]
    if found:
        parts.append(f"{found_label}: " + "; ".join(_quote(v) for v in found) + ".")
    if missing:
        parts.append(f"{missing_label}: " + "; ".join(_quote(v) for v in missing) + ".")
    return " ".join(parts)


NO_GROUND_TRUTH_REASON = (
    "The score is 0 because the run has no ground truth to compare the context against."
)
NO_CLAIMS_REASON = "The score is 0 because no claims could be extracted from the ground truth."
