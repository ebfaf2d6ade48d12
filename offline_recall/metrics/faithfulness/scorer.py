"""The faithfulness scorer: the output's claims, each judged against the context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from pydantic import Field, field_validator

from ...judging.judge import Pair, PairVerdict
from ...scorer.claims import ClaimItem, ClaimScorer, ClaimsResult
from ...scorer.inputs import ContextOptions, answer_text
from ...scorer.results import ScorerInput, Status
from ..recall import ID as RECALL
from .reading import NotAClaim, read_answer

ID = "faithfulness-scorer"
NAME = "Faithfulness Scorer"
DESCRIPTION = (
    "How faithful an output is to the retrieved context: the share of the output's claims "
    "a judge finds in the context"
)
NO_OUTPUT_REASON = "The score is 0 because the run has no output, so it makes no claims."
NO_CLAIMS_REASON = "The score is 0 because no claims could be extracted from the output."
NOTHING_STATED_REASON = "The score is 0 because no sentence of the output makes a claim."


class FaithfulnessResult(ClaimsResult):
    """Faithfulness of one run: the share of its output's claims the context supports."""

    not_claims: tuple[NotAClaim, ...] = Field(
        default=(),
        exclude_if=lambda found: not found,
        description="The output's sentences that make no claim (a question, a greeting), "
        "each with the reason; written only when there are some",
    )

    @field_validator("not_claims", mode="before")
    @classmethod
    def _absent_is_none(cls, value: Any) -> Any:
        return () if value is None else value  # a Parquet column holds null where unset


class FaithfulnessOptions(ContextOptions):
    """Faithfulness's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "faithfulness"


@dataclass(frozen=True)
class AnswerItem(ClaimItem):
    """An output made ready for the model, with the sentences that are not claims."""

    set_aside: tuple[NotAClaim, ...] = ()


def _set_aside_text(set_aside: Sequence[NotAClaim]) -> str:
    return "Not claims: " + "; ".join(f"'{n.text}' ({n.reason})" for n in set_aside) + "."


class FaithfulnessScorer(ClaimScorer[FaithfulnessResult]):
    """Scores how much of a run's output the retrieved context supports.

    Build it with `create_faithfulness_scorer` (or from a run spec). The claims come from the
    output (its text, or its first assistant message) as context recall's come from the
    ground truth: the same prompts, rules, claim cache and judge.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    options_type = FaithfulnessOptions
    result_type = FaithfulnessResult
    measure = "faithfulness"
    statuses = (Status.NO_CLAIMS, Status.NO_CONTEXT)
    reads = ("output", "context")
    profile_scorer = RECALL

    noun = "outputs"
    counted = "claims in the output"
    found_label = "Supported"
    missing_label = "Not supported"
    no_claims_reason = NO_CLAIMS_REASON

    def prepare(self, run: ScorerInput) -> ClaimItem | FaithfulnessResult:
        """The output read whole (`read_answer`): its statements are extracted clause by
        clause, and the sentences that state nothing are kept beside the result."""
        output = answer_text(run.output)
        if output is None:
            return super().prepare(run)
        reading = read_answer(output)
        aside = tuple(reading.set_aside)
        if not reading.statements:
            reason = f"{NOTHING_STATED_REASON} {_set_aside_text(aside)}"
            return self.result(0.0, reason, Status.NO_CLAIMS, not_claims=aside)
        item = super().prepare(run.model_copy(update={"output": reading.text}))
        if not isinstance(item, ClaimItem) or not aside:
            return item
        return AnswerItem(**{f.name: getattr(item, f.name) for f in fields(item)}, set_aside=aside)

    def aggregate(
        self, item: ClaimItem, assessed: Mapping[Pair[str], PairVerdict]
    ) -> FaithfulnessResult:
        result = super().aggregate(item, assessed)
        if not isinstance(item, AnswerItem):
            return result
        reason = f"{result.reason} {_set_aside_text(item.set_aside)}"
        return result.model_copy(update={"not_claims": item.set_aside, "reason": reason})

    def claimed_text(self, run: ScorerInput) -> str | FaithfulnessResult:
        output = answer_text(run.output)
        if output is None:  # an empty output has no claims: 0, as in the reference
            return self.result(0.0, NO_OUTPUT_REASON, Status.NO_CLAIMS)
        return output
