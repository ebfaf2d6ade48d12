"""The context precision scorer: each retrieved chunk's relevance -> a rank-aware score."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar

from ...judging.judge import Pair, PairVerdict, Question
from ...scorer.chunks import ChunkItem, ChunkScorer
from ...scorer.inputs import (
    ContextOptions,
    answer_text,
    context_texts,
    ground_truth_text,
    question_text,
)
from ...scorer.results import NO_CONTEXT_REASON, ScorerInput, Status
from . import prompts as prompt_sets
from .prompts import PromptSet, Target, load_prompts
from .result import ChunkVerdict, PrecisionResult
from .score import NO_ANSWER_REASON, explain, precision_score

ID = "context-precision-scorer"
NAME = "Context Precision Scorer"
DESCRIPTION = (
    "How well the retrieved context is ranked: whether the chunks useful for the expected "
    "answer come first (mean average precision over the chunks in retrieved order)"
)


class ContextPrecisionOptions(ContextOptions):
    """Context precision's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context precision"


class ContextPrecisionScorer(ChunkScorer[Target, PrecisionResult]):
    """Scores whether a run's retrieved chunks are relevant to its expected answer, and ranked
    first. Build it with `create_context_precision_scorer` (or from a run spec).

    A chunk is judged against the run's ground truth when it has one, else its output.
    Precision asks its own relevance question: it extracts nothing and takes no judge prompt.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    options_type = ContextPrecisionOptions
    result_type = PrecisionResult
    prompt_package = prompt_sets.__name__
    measure = "precision"
    statuses = (Status.NO_GROUND_TRUTH, Status.NO_CONTEXT)
    reads = ("question", "ground truth", "output", "context")
    output_for_ground_truth = True

    @staticmethod
    def labelled_statement(record: Mapping[str, Any]) -> Target:
        """A labelled precision row's statement: its question (optional) and answer."""
        answer, question = record.get("answer"), record.get("question")
        if not isinstance(answer, str) or not answer.strip():
            raise ValueError("answer must be a non-empty string")
        if question is not None and not isinstance(question, str):
            raise ValueError("question must be a string")
        return Target(question, answer)

    @cached_property
    def prompts(self) -> PromptSet:
        return load_prompts(self.setup.prompt_version)

    def question(self) -> Question[Target]:
        return Question(self.prompts.judge_prompt, self.prompts.judge.yes, self.prompts.judge.no)

    @cached_property
    def context_budget(self) -> int:
        """Tokens one chunk may take beside an empty question and answer."""
        return self.budget(Target("", ""))

    def prepare(self, run: ScorerInput) -> ChunkItem[Target] | PrecisionResult:
        answer = ground_truth_text(run.ground_truth) or answer_text(run.output)
        if answer is None:
            return self.result(0.0, NO_ANSWER_REASON, Status.NO_GROUND_TRUTH)
        chunks = context_texts(self.options, run)
        if not any(c.strip() for c in chunks):  # nothing to judge: no model call
            return self.result(0.0, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        return self.chunk_item(Target(question_text(run.input), answer), chunks)

    def aggregate(
        self, item: ChunkItem[Target], assessed: Mapping[Pair[Target], PairVerdict]
    ) -> PrecisionResult:
        best = self.best_pieces(item, assessed)
        verdicts = [self._verdict(index, found) for index, found in enumerate(best)]
        score = precision_score(verdicts, self.scale)
        return self.result(score, explain(verdicts, score), Status.OK, verdicts=tuple(verdicts))

    def _verdict(self, index: int, best: PairVerdict | None) -> ChunkVerdict:
        """A chunk's best piece decides; a blank chunk is judged irrelevant without asking."""
        if best is None:
            return ChunkVerdict(chunk_index=index, relevant=False, probability=0.0)
        return ChunkVerdict(
            chunk_index=index,
            relevant=best.probability >= self.threshold,
            probability=min(1.0, max(0.0, best.probability)),
            model_p_yes=best.model_p_yes,
        )


__all__ = ["DESCRIPTION", "ID", "NAME", "ContextPrecisionScorer"]
