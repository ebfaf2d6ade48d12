"""The context relevance scorer: each chunk's relevance level and use -> the reference's score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from ...engines import Engine, Failed
from ...engines.base import Done
from ...judging.judge import DECIMALS, Judge, Pair, PairVerdict, Question, model_pairs
from ...judging.profile import MODEL_SIGNAL, JudgeProfile
from ...judging.signals import LEXICAL_SIGNALS, lexical_signals
from ...scorer.chunks import ChunkItem, ChunkScorer
from ...scorer.inputs import answer_text, context_texts, question_text
from ...scorer.results import ScorerInput, Status
from . import prompts as prompt_sets
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
    ) -> list[PairVerdict | Failed]:
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
            else PairVerdict(round(profile.probability(v), DECIMALS), v.get(MODEL_SIGNAL))
            for v in values
        ]


class ContextRelevanceScorer(ChunkScorer[Target, RelevanceResult]):
    """Scores how relevant a run's retrieved chunks are to its question and response, and
    whether the response used them. Build it with `create_context_relevance_scorer` (or from a
    run spec).

    Each chunk gets a level (high, medium, low, none) with the probability of each, from the
    judge profile's probability of relevance; whether the response used it and what the
    response states that no chunk holds are lexical rules (see the prompt set's `[rules]`).
    It asks its own four-way question: it extracts nothing and takes no judge prompt.
    """

    id = ID
    name = NAME
    description = DESCRIPTION
    options_type = ContextRelevanceOptions
    result_type = RelevanceResult
    prompt_package = prompt_sets.__name__
    measure = "relevance"
    statuses = (Status.NO_CONTEXT,)
    reads = ("question", "output", "context")
    levels = tuple(level.value for level in Level)

    @staticmethod
    def labelled_statement(record: Mapping[str, Any]) -> Target:
        """A labelled relevance row's statement: its question and response (either optional,
        one required)."""
        question, response = record.get("question"), record.get("response", record.get("answer"))
        for name, value in (("question", question), ("response", response)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string")
        if not (question or "").strip() and not (response or "").strip():
            raise ValueError("give a question or a response")
        return Target(question, response)

    @cached_property
    def prompts(self) -> PromptSet:
        return load_prompts(self.setup.prompt_version)

    def question(self) -> Question[Target]:
        levels = self.prompts.judge.levels
        return Question(self.prompts.judge_prompt, levels[0], levels[-1])

    def make_judge(self) -> LevelJudge:
        """The judge reading the model's four-way answer (see `LevelJudge`)."""
        levels = self.prompts.judge.levels
        return LevelJudge(self.judge_engine, self.question(), levels, self.setup.judge_profile)

    @property
    def penalties(self) -> Penalties:
        """What the score loses (the options', else the reference's defaults)."""
        options = self.options
        return options.penalties if isinstance(options, ContextRelevanceOptions) else Penalties()

    @cached_property
    def context_budget(self) -> int:
        """Tokens one chunk may take beside an empty question and response."""
        return self.budget(Target("", ""))

    def prepare(self, run: ScorerInput) -> ChunkItem[Target] | RelevanceResult:
        chunks = context_texts(self.options, run)
        if not any(c.strip() for c in chunks):  # no context: full marks, no model call
            return self.result(1.0 * self.scale, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        return self.chunk_item(Target(question_text(run.input), answer_text(run.output)), chunks)

    def aggregate(
        self, item: ChunkItem[Target], assessed: Mapping[Pair[Target], PairVerdict]
    ) -> RelevanceResult:
        best = self.best_pieces(item, assessed)
        verdicts = [self._verdict(index, item, found) for index, found in enumerate(best)]
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

    def _verdict(
        self, index: int, item: ChunkItem[Target], best: PairVerdict | None
    ) -> ChunkRelevance:
        """A chunk's best piece decides; a blank chunk is irrelevant without asking."""
        rules = self.prompts.rules
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


__all__ = ["DESCRIPTION", "ID", "NAME", "ContextRelevanceScorer", "LevelJudge"]
