"""The context precision scorer: each retrieved chunk's relevance -> a rank-aware score."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ...engines import Engine
from ...errors import ConfigurationError
from ...judging.judge import Assessment, Pair, Question
from ...text import pack
from ..base import NO_CONTEXT_REASON, ScorerRun, ScorerSetup, Status
from ..context import ContextOptions, answer_text, context_texts, ground_truth_text, question_text
from ..pipeline import Pipeline
from .prompts import PromptSet, Target, load_prompts
from .result import ChunkVerdict, PrecisionResult
from .score import NO_ANSWER_REASON, explain, precision_score

ID = "context-precision-scorer"
NAME = "Context Precision Scorer"
DESCRIPTION = (
    "How well the retrieved context is ranked: whether the chunks useful for the expected "
    "answer come first (mean average precision over the chunks in retrieved order)"
)


@dataclass(frozen=True)
class RelevanceUnit:
    """A judged unit: is this piece of a retrieved chunk useful for arriving at the answer?"""

    chunk_index: int
    piece: str
    target: Target
    """The question (if any) and the expected answer."""

    @property
    def pair(self) -> Pair[Target]:
        return (self.piece, self.target)


@dataclass(frozen=True)
class RelevanceItem:
    """A run made ready for the model: what its chunks are judged against, and each chunk's
    pieces that fit the model (none for a blank chunk)."""

    target: Target
    pieces: list[list[str]]


class ContextPrecisionScorer(Pipeline[RelevanceItem, RelevanceUnit, PrecisionResult]):
    """Scores whether a run's retrieved chunks are relevant to its expected answer, and ranked
    first. Build it with `create_context_precision_scorer` (or from a run spec).

    A chunk is judged against the run's ground truth when it has one, else its output.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    result_type = PrecisionResult
    judged = "chunks judged"

    def __init__(
        self,
        engine: Engine,
        options: ContextOptions | None,
        setup: ScorerSetup,
        *,
        claim_cache: object = None,
        judge: Engine | None = None,
        judge_prompt: str | None = None,
    ) -> None:
        """`claim_cache` is unused (precision extracts nothing); precision asks its own
        relevance question, so a judge prompt (a claim question) is refused."""
        if judge_prompt is not None:
            raise ConfigurationError(
                "context precision asks its own question; it takes no judge prompt"
            )
        self.prompts: PromptSet = load_prompts(setup.prompt_version)
        question = Question(
            self.prompts.judge_prompt, self.prompts.judge.yes, self.prompts.judge.no
        )
        super().__init__(engine, options, setup, question, judge=judge)

    @cached_property
    def context_budget(self) -> int:
        """Tokens one chunk may take beside an empty question and answer."""
        return self.budget(Target("", ""))

    def budget(self, against: Target) -> int:
        """Tokens one chunk may take beside this question and answer, leaving room for the
        one-token verdict; a longer chunk is cut into pieces, and is relevant if a piece is."""
        around = self.judge_engine.prompt_tokens(self.prompts.judge_prompt("", against))
        return max(2, self.judge_engine.identity.context_window - around - 1)

    def prepare(self, run: ScorerRun) -> RelevanceItem | PrecisionResult:
        answer = ground_truth_text(run.ground_truth) or answer_text(run.output)
        if answer is None:
            return self.result(0.0, NO_ANSWER_REASON, Status.NO_GROUND_TRUTH)
        chunks = context_texts(self.options, run)
        if not any(c.strip() for c in chunks):  # nothing to judge: no model call
            return self.result(0.0, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        against = Target(question_text(run.input), answer)
        budget, count = self.budget(against), self.judge_engine.count_tokens
        return RelevanceItem(
            target=against,
            pieces=[pack(c, budget, count) if c.strip() else [] for c in chunks],
        )

    def units(self, item: RelevanceItem) -> list[RelevanceUnit]:
        return [
            RelevanceUnit(index, piece, item.target)
            for index, pieces in enumerate(item.pieces)
            for piece in pieces
        ]

    def aggregate(
        self, item: RelevanceItem, assessed: Mapping[Pair[Target], Assessment]
    ) -> PrecisionResult:
        verdicts = [
            self._verdict(index, [assessed[(piece, item.target)] for piece in pieces])
            for index, pieces in enumerate(item.pieces)
        ]
        score = precision_score(verdicts, self.scale)
        return self.result(score, explain(verdicts, score), Status.OK, verdicts=tuple(verdicts))

    def _verdict(self, index: int, pieces: list[Assessment]) -> ChunkVerdict:
        """A chunk's best piece decides; a blank chunk is judged irrelevant without asking."""
        best = max(pieces, key=lambda a: a.probability, default=None)
        if best is None:
            return ChunkVerdict(chunk_index=index, relevant=False, probability=0.0)
        return ChunkVerdict(
            chunk_index=index,
            relevant=best.probability >= self.threshold,
            probability=min(1.0, max(0.0, best.probability)),
            model_p_yes=best.model_p_yes,
        )


__all__ = ["DESCRIPTION", "ID", "NAME", "ContextPrecisionScorer", "RelevanceUnit"]
