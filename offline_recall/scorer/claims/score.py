"""The score and the reason of a scorer on claims, computed from the verdicts in Python, never
by the model."""

from __future__ import annotations

from collections.abc import Sequence

from ..results import round_half_up
from .result import ClaimVerdict


def claim_score(verdicts: Sequence[ClaimVerdict], scale: float) -> float:
    """Share of supported claims, clamped to 1, times scale, rounded half-up; 0 for no claims."""
    if not verdicts:
        return 0.0
    supported = sum(v.supported for v in verdicts)
    return round_half_up(min(1.0, supported / len(verdicts)) * scale)


def _quote(verdict: ClaimVerdict) -> str:
    where = f" (context chunk {verdict.chunk_index})" if verdict.chunk_index is not None else ""
    return f'"{verdict.claim}"{where}'


def explain_claims(
    verdicts: Sequence[ClaimVerdict],
    score: float,
    *,
    claims: str,
    found_label: str,
    missing_label: str,
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
