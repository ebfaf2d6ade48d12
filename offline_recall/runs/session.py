"""A scoring session: a resolved run's engines started and its scorers built on them
(`score.session` starts one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engines import Engine
from ..engines.deferred import DeferredEngine
from ..errors import ConfigurationError
from ..scorer.construction import build_scorer
from ..scorer.registry import scorer_kind
from ..scorer.results import Scorer
from .resolve import ResolvedRun

if TYPE_CHECKING:
    from ..scorer.pipeline import ClaimCacheLike


@dataclass
class Scoring:
    """A run's engine (and the judge's, if any), its scorers by id, and the batch size for
    bulk runs."""

    engine: Engine
    scorers: dict[str, Scorer]
    window: int
    judge: Engine | None = None

    @classmethod
    def start(cls, run: ResolvedRun, *, claim_cache: ClaimCacheLike | None = None) -> Scoring:
        """`run`'s engines started from what it resolved (no manifest read, no server asked
        again) and its scorers built on them; claims are kept in `claim_cache` if given.
        When no scorer of the run asks the model, it is started only if a scorer asks it after
        all: a run of rules alone loads none."""
        if not any(scorer_kind(s.id).asks_model() for s in run.spec.scorers):
            deferred = DeferredEngine(run.model.start, run.spec.model_fingerprint)
            return cls.on(run, deferred, claim_cache=claim_cache)
        engine = run.model.start()
        judge = None
        if run.judge is not None:
            try:
                judge = run.judge.start()
            except BaseException:
                engine.close()
                raise
        return cls.on(run, engine, claim_cache=claim_cache, judge=judge)

    @classmethod
    def on(
        cls,
        run: ResolvedRun,
        engine: Engine,
        *,
        claim_cache: ClaimCacheLike | None = None,
        judge: Engine | None = None,
    ) -> Scoring:
        """`run`'s scorers on engines already running (each must report the spec's
        fingerprint)."""
        spec = run.spec
        _check_runs(engine, spec.model_fingerprint)
        if (judge is None) != (spec.judge is None):
            raise ConfigurationError(
                "the spec names a judge model: pass its engine"
                if judge is None
                else "the spec names no judge model"
            )
        if judge is not None and spec.judge is not None:
            _check_runs(judge, spec.judge.model_fingerprint)
        # The judging model's own question, when its manifest names one (its text is part of
        # that model's fingerprint, checked above).
        judge_prompt = run.judging.manifest.judge_prompt_text()
        scorers: dict[str, Scorer] = {
            s.id: build_scorer(
                scorer_kind(s.id),
                engine,
                None,
                s.setup,
                claim_cache=claim_cache,
                judge=judge,
                judge_prompt=judge_prompt,
            )
            for s in spec.scorers
        }
        return cls(engine=engine, scorers=scorers, window=run.model.kind.window, judge=judge)

    def close(self) -> None:
        try:
            self.engine.close()
        finally:
            if self.judge is not None:
                self.judge.close()


def _check_runs(engine: Engine, fingerprint: str) -> None:
    if isinstance(engine, DeferredEngine) and not engine.started:
        if engine.fingerprint != fingerprint:
            raise ConfigurationError(
                f"the engine will run {engine.fingerprint}, the spec names {fingerprint}"
            )
        return  # checked again when it starts
    if engine.identity.fingerprint != fingerprint:
        raise ConfigurationError(
            f"the engine runs {engine.identity.fingerprint}, the spec names {fingerprint}"
        )
