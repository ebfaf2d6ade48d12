"""What context recall records per run: a verdict per ground-truth claim, and the recall the
judge expects."""

from __future__ import annotations

from pydantic import Field

from ...scorer.claims.result import ClaimsResult


class RecallResult(ClaimsResult):
    """Context recall of one run: the share of its ground-truth claims the context supports."""

    expected_recall: float | None = Field(
        default=None,
        description="The mean of the claims' probabilities, times scale: the recall the judge "
        "expects, where the score counts decided verdicts; None without claims",
    )
