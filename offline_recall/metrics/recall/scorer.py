"""The context recall scorer: the ground truth's claims, each judged against the context."""

from __future__ import annotations

from typing import Any, ClassVar

from ...scorer.claims import ClaimScorer, ClaimVerdict
from ...scorer.inputs import ContextOptions, ground_truth_text
from ...scorer.results import ScorerInput, Status
from .result import RecallResult
from .score import NO_CLAIMS_REASON, NO_GROUND_TRUTH_REASON, expected_recall

ID = "context-recall-scorer"
NAME = "Context Recall Scorer"
DESCRIPTION = (
    "How much of a ground-truth answer the retrieved context supports: the share of its "
    "atomic claims a judge finds in the context"
)


class ContextRecallOptions(ContextOptions):
    """Context recall's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context recall"


class ContextRecallScorer(ClaimScorer[RecallResult]):
    """Scores how much of a run's ground truth the retrieved context supports.

    Build it with `create_context_recall_scorer` (or from a run spec). `run` scores one run;
    `run_many` scores a batch, sending all extractions and then all verdicts to the engine.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    options_type = ContextRecallOptions
    result_type = RecallResult
    measure = "recall"
    statuses = (Status.NO_GROUND_TRUTH, Status.NO_CLAIMS, Status.NO_CONTEXT)
    reads = ("ground truth", "context")

    noun = "ground truths"
    counted = "ground-truth claims"
    no_claims_reason = NO_CLAIMS_REASON

    def claimed_text(self, run: ScorerInput) -> str | RecallResult:
        ground_truth = ground_truth_text(run.ground_truth)
        if ground_truth is None:
            return self.result(0.0, NO_GROUND_TRUTH_REASON, Status.NO_GROUND_TRUTH)
        return ground_truth

    def conclude(self, verdicts: list[ClaimVerdict], **fields: Any) -> RecallResult:
        expected = expected_recall(verdicts, self.scale)
        return super().conclude(verdicts, expected_recall=expected, **fields)


__all__ = ["DESCRIPTION", "ID", "NAME", "ContextRecallScorer"]
