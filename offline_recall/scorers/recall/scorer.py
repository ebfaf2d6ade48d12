"""The context recall scorer: the ground truth's claims, each judged against the context."""

from __future__ import annotations

from typing import ClassVar

from ..base import ScorerRun, Status
from ..context import ground_truth_text
from .claim_scorer import ClaimScorer
from .extraction import ClaimStore
from .result import ClaimVerdict, RecallResult
from .score import (
    NO_CLAIMS_REASON,
    NO_GROUND_TRUTH_REASON,
    expected_recall,
    explain,
    recall_score,
)

ID = "context-recall-scorer"
NAME = "Context Recall Scorer"
DESCRIPTION = (
    "How much of a ground-truth answer the retrieved context supports: the share of its "
    "atomic claims a judge finds in the context"
)


class ContextRecallScorer(ClaimScorer[RecallResult]):
    """Scores how much of a run's ground truth the retrieved context supports.

    Build it with `create_context_recall_scorer` (or from a run spec). `run` scores one run;
    `run_many` scores a batch, sending all extractions and then all verdicts to the engine.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    result_type = RecallResult
    noun: ClassVar[str] = "ground truths"

    def claimed_text(self, run: ScorerRun) -> str | RecallResult:
        ground_truth = ground_truth_text(run.ground_truth)
        if ground_truth is None:
            return self.result(0.0, NO_GROUND_TRUTH_REASON, Status.NO_GROUND_TRUTH)
        return ground_truth

    def no_claims(self) -> RecallResult:
        return self.result(0.0, NO_CLAIMS_REASON, Status.NO_CLAIMS)

    def conclude(self, verdicts: list[ClaimVerdict]) -> RecallResult:
        score = recall_score(verdicts, self.scale)
        return self.result(
            score,
            explain(verdicts, score),
            Status.OK,
            verdicts=tuple(verdicts),
            expected_recall=expected_recall(verdicts, self.scale),
        )


__all__ = ["DESCRIPTION", "ID", "NAME", "ClaimStore", "ContextRecallScorer"]
