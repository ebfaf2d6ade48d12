"""The context relevance scorer: each chunk's relevance level and use -> the reference's score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ...engines import Engine, Failed
from ...engines.base import Done
from ...errors import ConfigurationError
from ...judging.judge import DECIMALS, Assessment, Judge, Pair, Question, model_pairs
from ...judging.profile import MODEL_SIGNAL, JudgeProfile
from ...judging.signals import LEXICAL_SIGNALS, lexical_signals
from ...text import pack
from ..base import ScorerRun, ScorerSetup, Status
from ..context import ContextOptions, answer_text, context_texts, question_text
from ..pipeline import Pipeline
from .options import ContextRelevanceOptions, Penalties
from .prompts import PromptSet, Target, load_prompts
from .result import WEIGHTS, ChunkRelevance, Level, RelevanceResult
from .score import (
    NO_CONTEXT_REASON,
    explain,
    level_of,
    levels_of,
    missing_context,
    relevance_score,
    was_used,
)

ID = "context-relevance-scorer"
NAME = "Context Relevance Scorer"
DESCRIPTION = (
    "How relevant and useful the retrieved context was for the response: each chunk's "
    "relevance level, less penalties for relevant chunks left unused and for missing context"
)


class LevelJudge(Judge[Target]):
    """Decides (chunk, target) pairs under a profile whose model signal is the model's expected
    level weight, read from one four-way answer (the level words under a choice constraint)."""

    def __init__(
        self,
        engine: Engine,
        question: Question[Target],
        levels: Sequence[str],
        profile: JudgeProfile,
    ) -> None:
        super().__init__(engine, question, profile)
        self.levels = tuple(levels)

    def assess(
        self, pairs: Sequence[Pair[Target]], *, done: Done | None = None
    ) -> list[Assessment | Failed]:
        profile = self.profile
        lexical = any(s in LEXICAL_SIGNALS for s in profile.signals)
        values: list[dict[str, float] | Failed] = [
            lexical_signals(text, str(target)) if lexical else {} for text, target in pairs
        ]
        if profile.uses_model and pairs:
            asked = model_pairs(pairs, profile.evidence_sentences)
            prompts = [self.question.prompt(text, target) for text, target in asked]
            found = self.engine.answer_probabilities(prompts, self.levels, done=done)
            weights = [WEIGHTS[Level(word)] for word in self.levels]
            for i, f in enumerate(found):
                v = values[i]
                if isinstance(f, Failed):
                    values[i] = f
                elif not isinstance(v, Failed):
                    expected = sum(p * w for p, w in zip(f, weights, strict=True))
                    v[MODEL_SIGNAL] = round(min(1.0, max(0.0, expected)), DECIMALS)
        elif done is not None:
            done(len(pairs))
        return [
            v
            if isinstance(v, Failed)
            else Assessment(round(profile.probability(v), DECIMALS), v.get(MODEL_SIGNAL))
            for v in values
        ]


@dataclass(frozen=True)
class ChunkUnit:
    """A judged unit: how relevant is this piece of a chunk to the question and response?"""

    chunk_index: int
    piece: str
    target: Target

    @property
    def pair(self) -> Pair[Target]:
        return (self.piece, self.target)


@dataclass(frozen=True)
class RelevanceItem:
    """A run made ready for the model: its target, its chunks, and each chunk's pieces that
    fit the model (none for a blank chunk)."""

    target: Target
    chunks: list[str]
    pieces: list[list[str]]


class ContextRelevanceScorer(Pipeline[RelevanceItem, ChunkUnit, RelevanceResult]):
    """Scores how relevant a run's retrieved chunks are to its question and response, and
    whether the response used them. Build it with `create_context_relevance_scorer` (or from a
    run spec).

    Each chunk gets a level (high, medium, low, none) with the probability of each, from the
    judge profile's probability of relevance; whether the response used it and what the
    response states that no chunk holds are lexical rules (see the prompt set's `[rules]`).
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    result_type = RelevanceResult
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
        """`claim_cache` is unused (nothing is extracted); context relevance asks its own
        four-way question, so a judge prompt (a claim question) is refused."""
        if judge_prompt is not None:
            raise ConfigurationError(
                "context relevance asks its own question; it takes no judge prompt"
            )
        self.prompts: PromptSet = load_prompts(setup.prompt_version)
        levels = self.prompts.judge.levels
        question = Question(self.prompts.judge_prompt, levels[0], levels[-1])
        super().__init__(engine, options, setup, question, judge=judge)
        self.judge = LevelJudge(self.judge_engine, question, levels, setup.judge_profile)
        self.penalties = (
            options.penalties if isinstance(options, ContextRelevanceOptions) else Penalties()
        )

    @cached_property
    def context_budget(self) -> int:
        """Tokens one chunk may take beside an empty question and response."""
        return self.budget(Target("", ""))

    def budget(self, against: Target) -> int:
        """Tokens one chunk may take beside this question and response, leaving room for the
        one-token level; a longer chunk is cut into pieces, and its best piece decides."""
        around = self.judge_engine.prompt_tokens(self.prompts.judge_prompt("", against))
        return max(2, self.judge_engine.identity.context_window - around - 1)

    def prepare(self, run: ScorerRun) -> RelevanceItem | RelevanceResult:
        chunks = context_texts(self.options, run)
        if not any(c.strip() for c in chunks):  # no context: full marks, no model call
            return self.result(1.0 * self.scale, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        against = Target(question_text(run.input), answer_text(run.output))
        budget, count = self.budget(against), self.judge_engine.count_tokens
        return RelevanceItem(
            target=against,
            chunks=chunks,
            pieces=[pack(c, budget, count) if c.strip() else [] for c in chunks],
        )

    def units(self, item: RelevanceItem) -> list[ChunkUnit]:
        return [
            ChunkUnit(index, piece, item.target)
            for index, pieces in enumerate(item.pieces)
            for piece in pieces
        ]

    def aggregate(
        self, item: RelevanceItem, assessed: Mapping[Pair[Target], Assessment]
    ) -> RelevanceResult:
        verdicts = [
            self._verdict(index, item, [assessed[(piece, item.target)] for piece in pieces])
            for index, pieces in enumerate(item.pieces)
        ]
        rules = self.prompts.rules
        missing = missing_context(item.chunks, item.target.response, rules.found_share)
        unused = sum(1 for v in verdicts if v.level is Level.HIGH and not v.used)
        score = relevance_score(
            [v.level for v in verdicts], unused, len(missing), self.penalties, self.scale
        )
        return self.result(
            score,
            explain(verdicts, missing, score, self.penalties),
            Status.OK,
            verdicts=tuple(verdicts),
            missing_context=tuple(missing),
        )

    def _verdict(self, index: int, item: RelevanceItem, pieces: list[Assessment]) -> ChunkRelevance:
        """A chunk's best piece decides; a blank chunk is irrelevant without asking."""
        rules = self.prompts.rules
        best = max(pieces, key=lambda a: a.probability, default=None)
        p = 0.0 if best is None else min(1.0, max(0.0, best.probability))
        return ChunkRelevance(
            chunk_index=index,
            level=level_of(p, self.threshold, rules.spread),
            used=best is not None
            and was_used(item.chunks[index], item.target.response, rules.used_share),
            probability=p,
            levels=levels_of(p, self.threshold, rules.spread),
            model_weight=None if best is None else best.model_p_yes,
        )


__all__ = ["DESCRIPTION", "ID", "NAME", "ChunkUnit", "ContextRelevanceScorer", "LevelJudge"]
