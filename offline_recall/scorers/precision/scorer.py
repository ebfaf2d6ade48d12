"""The context precision pipeline: judge each retrieved chunk's relevance -> rank-aware score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..._version import __version__
from ...engines import Engine, Failed
from ...judging.judge import Assessment, Judge, Pair, Question
from ...text import pack
from ..base import NO_CONTEXT_REASON, Progress, ScorerRun, ScorerSetup, Status
from ..batch import isolated, stage
from ..context import (
    ContextOptions,
    answer_text,
    as_run,
    context_texts,
    ground_truth_text,
    question_text,
)
from ..memo import Memo
from .prompts import PromptSet, load_prompts, target
from .result import ChunkVerdict, PrecisionResult
from .score import NO_ANSWER_REASON, explain, precision_score

ID = "context-precision-scorer"
NAME = "Context Precision Scorer"
DESCRIPTION = (
    "How well the retrieved context is ranked: whether the chunks useful for the expected "
    "answer come first (mean average precision over the chunks in retrieved order)"
)
VERDICTS_REMEMBERED = 8192


@dataclass(frozen=True)
class _Item:
    """A run made ready for the model: what its chunks are judged against, and each chunk's
    pieces that fit the model (none for a blank chunk)."""

    statement: str
    pieces: list[list[str]]


class ContextPrecisionScorer:
    """Scores whether a run's retrieved chunks are relevant to its expected answer, and ranked
    first. Build it with `create_context_precision_scorer` (or from a run spec).

    A chunk is judged against the run's ground truth when it has one, else its output.
    """

    id = ID
    name = NAME
    description = DESCRIPTION

    def __init__(self, engine: Engine, options: ContextOptions | None, setup: ScorerSetup) -> None:
        self.engine = engine
        self.options = options
        self.setup = setup
        self.progress: Progress | None = None
        self.prompts: PromptSet = load_prompts(setup.prompt_version)
        question = Question(
            self.prompts.judge_prompt, self.prompts.judge.yes, self.prompts.judge.no
        )
        self.judge = Judge(engine, question, setup.judge_profile)
        # Identical (chunk, question and answer) pairs are sent to the model once.
        self._verdicts: Memo[Pair, Assessment | Failed] = Memo(VERDICTS_REMEMBERED)

    @property
    def threshold(self) -> float:
        """A chunk is relevant when its probability reaches this."""
        return self.judge.threshold

    @property
    def scale(self) -> float:
        return self.setup.scale or 1.0

    @cached_property
    def context_budget(self) -> int:
        """Tokens one chunk may take beside an empty question and answer."""
        return self.budget(target("", ""))

    def budget(self, statement: str) -> int:
        """Tokens one chunk may take beside this question and answer, leaving room for the
        one-token verdict; a longer chunk is cut into pieces, and is relevant if a piece is."""
        around = self.engine.prompt_tokens(self.prompts.judge_prompt("", statement))
        return max(2, self.engine.identity.context_window - around - 1)

    def assess(self, pairs: Sequence[Pair]) -> list[Assessment | Failed]:
        """Each (chunk, statement) pair judged exactly as the scorer judges it; the statement
        is `prompts.target(question, answer)`."""
        found = self._verdicts.lookup(list(dict.fromkeys(pairs)), self.judge.assess)
        return [found[pair] for pair in pairs]

    def run(self, run: ScorerRun | Mapping[str, Any]) -> PrecisionResult:
        """Score one run: `score` in [0, scale], a `reason`, and a verdict per chunk."""
        return self.run_many([run])[0]

    def run_many(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> list[PrecisionResult]:
        """Score many runs in one pass over the engine; one run's failure is its own result
        (see `isolated`)."""
        return isolated(runs, self._score_batch, self.error_result)

    def error_result(self, message: str) -> PrecisionResult:
        """The result of a run that could not be scored: no score, the reason stated."""
        return self._result(None, f"Not scored: {message}", Status.ERROR, error=message)

    # The pipeline ---------------------------------------------------------------------

    def _score_batch(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> list[PrecisionResult]:
        prepared = [self._prepare(r) for r in runs]
        pairs = list(
            dict.fromkeys(
                (piece, p.statement)
                for p in prepared
                if isinstance(p, _Item)
                for pieces in p.pieces
                for piece in pieces
            )
        )
        assessed = self._verdicts.lookup(pairs, self._judge)
        self._verdicts.forget(p for p, a in assessed.items() if isinstance(a, Failed))
        return [
            p if isinstance(p, PrecisionResult) else self._finish(p, assessed) for p in prepared
        ]

    def _judge(self, pairs: list[Pair]) -> list[Assessment | Failed]:
        return self.judge.assess(pairs, done=stage(self.progress, "chunks judged", len(pairs)))

    def _prepare(self, raw: ScorerRun | Mapping[str, Any]) -> _Item | PrecisionResult:
        """What the run's chunks are judged against and their pieces, or an early result."""
        try:
            run = as_run(raw)
            answer = ground_truth_text(run.ground_truth) or answer_text(run.output)
            if answer is None:
                return self._result(0.0, NO_ANSWER_REASON, Status.NO_GROUND_TRUTH)
            chunks = context_texts(self.options, run)
        except Exception as e:  # a bad run, or an extractor that raised: this run only
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")
        if not any(c.strip() for c in chunks):  # nothing to judge: no model call
            return self._result(0.0, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        statement = target(question_text(run.input), answer)
        budget, count = self.budget(statement), self.engine.count_tokens
        return _Item(
            statement=statement,
            pieces=[pack(c, budget, count) if c.strip() else [] for c in chunks],
        )

    def _finish(self, item: _Item, assessed: dict[Pair, Assessment | Failed]) -> PrecisionResult:
        found = [[assessed[(piece, item.statement)] for piece in pieces] for pieces in item.pieces]
        failed = [a for pieces in found for a in pieces if isinstance(a, Failed)]
        if failed:
            return self.error_result(failed[0].message)
        verdicts = [
            self._verdict(index, [a for a in pieces if isinstance(a, Assessment)])
            for index, pieces in enumerate(found)
        ]
        score = precision_score(verdicts, self.scale)
        return self._result(score, explain(verdicts, score), Status.OK, verdicts=tuple(verdicts))

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

    def _result(
        self,
        score: float | None,
        reason: str,
        status: Status,
        *,
        error: str | None = None,
        verdicts: tuple[ChunkVerdict, ...] = (),
    ) -> PrecisionResult:
        return PrecisionResult(
            scorer=self.id,
            score=score,
            reason=reason,
            status=status,
            error=error,
            verdicts=verdicts,
            model_fingerprint=self.engine.identity.fingerprint,
            prompt_version=self.setup.prompt_version,
            judge_profile=self.setup.judge_profile.digest,
            library_version=__version__,
        )
