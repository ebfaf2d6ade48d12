"""The faithfulness scorer: the output's claims, each judged against the context."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ..base import ScorerRun, Status
from ..context import answer_text
from ..recall.claim_scorer import ClaimScorer
from ..recall.result import ClaimsResult, ClaimVerdict
from ..recall.score import explain as recall_explain
from ..recall.score import recall_score

ID = "faithfulness-scorer"
NAME = "Faithfulness Scorer"
DESCRIPTION = (
    "How faithful an output is to the retrieved context: the share of the output's claims "
    "a judge finds in the context"
)
NO_OUTPUT_REASON = "The score is 0 because the run has no output, so it makes no claims."
NO_CLAIMS_REASON = "The score is 0 because no claims could be extracted from the output."


class FaithfulnessResult(ClaimsResult):
    """Faithfulness of one run: the share of its output's claims the context supports."""


def explain(verdicts: Sequence[ClaimVerdict], score: float) -> str:
    """A readable reason: the score, the claims supported with their chunk, the others."""
    return recall_explain(
        verdicts,
        score,
        claims="claims in the output",
        found_label="Supported",
        missing_label="Not supported",
    )


class FaithfulnessScorer(ClaimScorer[FaithfulnessResult]):
    """Scores how much of a run's output the retrieved context supports.

    Build it with `create_faithfulness_scorer` (or from a run spec). The claims come from the
    output (its text, or its first assistant message) as context recall's come from the
    ground truth: the same prompts, rules, claim cache and judge.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    result_type = FaithfulnessResult
    noun: ClassVar[str] = "outputs"

    def claimed_text(self, run: ScorerRun) -> str | FaithfulnessResult:
        output = answer_text(run.output)
        if output is None:  # an empty output has no claims: 0, as in the reference
            return self.result(0.0, NO_OUTPUT_REASON, Status.NO_CLAIMS)
        return output

    def no_claims(self) -> FaithfulnessResult:
        return self.result(0.0, NO_CLAIMS_REASON, Status.NO_CLAIMS)

    def conclude(self, verdicts: list[ClaimVerdict]) -> FaithfulnessResult:
        score = recall_score(verdicts, self.scale)
        return self.result(score, explain(verdicts, score), Status.OK, verdicts=tuple(verdicts))
