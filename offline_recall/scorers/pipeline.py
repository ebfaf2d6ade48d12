"""The pipeline every scorer runs on.

It owns what scorers share: a batch prepared run by run (a bad run is its own result), an
optional generation stage, the judged units de-duplicated across the batch and sent to the
judge in one pass, the verdicts remembered (failures forgotten, to be tried again), a batch
that breaks retried run by run (see `isolated`), progress, and every result stamped with the
model, prompt version, judge profile and library version.

A scorer declares only its own parts: `prepare` (a run -> an item, or an early result),
`generate` (optional: e.g. claims for each item), `units` (an item's judged units, typed, each
naming the (evidence, statement) pair the judge decides) and `aggregate` (an item's verdicts ->
its score and reason).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from .._version import __version__
from ..engines import Engine, Failed
from ..judging.judge import Assessment, Judge, Pair, Question
from .base import Progress, ScoreResult, ScorerRun, ScorerSetup, Status
from .batch import isolated, stage
from .context import ContextOptions, as_run
from .memo import Memo

VERDICTS_REMEMBERED = 8192


class JudgedUnit(Hashable, Protocol):
    """One thing a scorer asks the judge about, with named fields (a claim against a chunk,
    a chunk against a question and its answer); `pair` is what the judge reads."""

    @property
    def pair(self) -> Pair[Any]: ...


T = TypeVar("T")
U = TypeVar("U", bound=JudgedUnit)
R = TypeVar("R", bound=ScoreResult)


class Pipeline(Generic[T, U, R]):
    """A scorer's batch skeleton: `run`, `run_many`, `error_result` and the verdict memo.

    Subclasses set `id`, `name`, `description`, `result_type` and `judged` (the progress
    stage of their verdicts), and define `prepare`, `units` and `aggregate` (and `generate`
    when they produce something per item before judging).
    """

    id: str
    name: str
    description: str
    result_type: ClassVar[type[ScoreResult]]
    judged: ClassVar[str] = "verdicts judged"

    def __init__(
        self,
        engine: Engine,
        options: ContextOptions | None,
        setup: ScorerSetup,
        question: Question[Any],
        *,
        judge: Engine | None = None,
    ) -> None:
        self.engine = engine
        self.judge_engine = judge or engine
        """The engine that judges the units: a separate verifier, else the scorer's engine."""
        self.options = options
        self.setup = setup
        self.progress: Progress | None = None
        """Told how each batch's stages go when `run_many` is given no progress of its own."""
        self._batch_progress: Progress | None = None
        self.judge = Judge(self.judge_engine, question, setup.judge_profile)
        # Identical pairs are sent to the judge once.
        self._verdicts: Memo[Pair[Any], Assessment | Failed] = Memo(VERDICTS_REMEMBERED)

    # What a scorer declares ---------------------------------------------------------------

    def prepare(self, run: ScorerRun) -> T | R:
        """The run made ready for the model, or its result when nothing needs judging."""
        raise NotImplementedError

    def generate(self, items: Mapping[int, T]) -> Mapping[int, T | Failed]:
        """What the scorer generates for each item before judging (nothing by default)."""
        return items

    def units(self, item: T) -> Sequence[U]:
        """The item's judged units, in the order they are sent to the judge."""
        raise NotImplementedError

    def aggregate(self, item: T, assessed: Mapping[Pair[Any], Assessment]) -> R:
        """The item's result from its units' verdicts (every one of them judged)."""
        raise NotImplementedError

    # What every scorer shares ---------------------------------------------------------------

    @property
    def model_fingerprint(self) -> str:
        """The scorer's model fingerprint, and the judge's after a + when it is another."""
        own = self.engine.identity.fingerprint
        if self.judge_engine is self.engine:
            return own
        return f"{own}+{self.judge_engine.identity.fingerprint}"

    @property
    def threshold(self) -> float:
        """A unit holds when its probability reaches this."""
        return self.judge.threshold

    @property
    def scale(self) -> float:
        return self.setup.scale or 1.0

    def assess(self, pairs: Sequence[Pair[Any]]) -> list[Assessment | Failed]:
        """Each (evidence, statement) pair judged exactly as the scorer judges it."""
        found = self._verdicts.lookup(list(dict.fromkeys(pairs)), self.judge.assess)
        return [found[pair] for pair in pairs]

    def run(self, run: ScorerRun | Mapping[str, Any]) -> R:
        """Score one run: `score` in [0, scale], a `reason`, and its verdicts."""
        return self.run_many([run])[0]

    def run_many(
        self, runs: Sequence[ScorerRun | Mapping[str, Any]], *, progress: Progress | None = None
    ) -> list[R]:
        """Score many runs in one pass over the engine; one run's failure is its own result
        (see `isolated`). `progress` (else the scorer's `progress`) is told how the batch's
        stages go."""
        told = progress if progress is not None else self.progress
        outer, self._batch_progress = self._batch_progress, told
        try:
            return isolated(runs, lambda batch: self._score_batch(batch, told), self.error_result)
        finally:
            self._batch_progress = outer

    @property
    def batch_progress(self) -> Progress | None:
        """What the batch being scored tells how its stages go (see `run_many`): a scorer's
        `generate` reports its own stages to it."""
        return self._batch_progress

    def error_result(self, message: str, *, transient: bool = False) -> R:
        """The result of a run that could not be scored: no score, the reason stated;
        `transient` when the engine failed for a while rather than the run."""
        return self.result(
            None, f"Not scored: {message}", Status.ERROR, error=message, transient=transient
        )

    def result(
        self,
        score: float | None,
        reason: str,
        status: Status,
        *,
        error: str | None = None,
        **fields: Any,
    ) -> R:
        """A result stamped with what decided it; `fields` are the scorer's own."""
        made = self.result_type(
            scorer=self.id,
            score=score,
            reason=reason,
            status=status,
            error=error,
            model_fingerprint=self.model_fingerprint,
            prompt_version=self.setup.prompt_version,
            judge_profile=self.setup.judge_profile.digest,
            library_version=__version__,
            **fields,
        )
        return made  # type: ignore[return-value]

    def _prepare(self, raw: ScorerRun | Mapping[str, Any]) -> T | R:
        try:
            return self.prepare(as_run(raw))
        except Exception as e:  # a bad run, or an extractor that raised: this run only
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")

    def _score_batch(
        self, runs: Sequence[ScorerRun | Mapping[str, Any]], progress: Progress | None
    ) -> list[R]:
        prepared = [self._prepare(r) for r in runs]
        items = {i: p for i, p in enumerate(prepared) if not isinstance(p, ScoreResult)}
        generated = self.generate(items) if items else {}
        units = {i: self.units(g) for i, g in generated.items() if not isinstance(g, Failed)}
        pairs = list(dict.fromkeys(u.pair for found in units.values() for u in found))

        def judge(pending: list[Pair[Any]]) -> list[Assessment | Failed]:
            return self.judge.assess(pending, done=stage(progress, self.judged, len(pending)))

        assessed = self._verdicts.lookup(pairs, judge)
        self._verdicts.forget(p for p, a in assessed.items() if isinstance(a, Failed))

        results: list[R] = []
        for i, p in enumerate(prepared):
            if isinstance(p, ScoreResult):
                results.append(p)  # type: ignore[arg-type]
                continue
            item = generated[i]
            if isinstance(item, Failed):
                results.append(self.error_result(item.message, transient=item.transient))
                continue
            own = {u.pair: assessed[u.pair] for u in units[i]}
            failed = next((a for a in own.values() if isinstance(a, Failed)), None)
            if failed is not None:
                results.append(self.error_result(failed.message, transient=failed.transient))
            else:
                judged = {k: a for k, a in own.items() if isinstance(a, Assessment)}
                results.append(self.aggregate(item, judged))
        return results
