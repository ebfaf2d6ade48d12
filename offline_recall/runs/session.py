"""A scoring session: a resolved run's engines started and its scorers built on them, for
callers that score items rather than a dataset. `resolve` makes the run `score` makes of the
same options, `session` starts it; the front door (`runs/score.py`) hands both on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engines import AUTO, Engine
from ..engines.deferred import DeferredEngine
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError
from ..scorer.construction import build_scorer
from ..scorer.registry import RECALL, scorer_kind
from ..scorer.results import Scorer
from .resolve import ResolvedRun, resolve_recorded, resolve_run

if TYPE_CHECKING:
    from ..judging.profile import JudgeProfile
    from ..scorer.pipeline import ClaimCacheLike
    from .spec import RunSpec


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


def resolve(
    scorers: Sequence[str] = (RECALL,),
    *,
    model: str = DEFAULT_MODEL,
    backend: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    scale: float = 1.0,
    judge_model: str | None = None,
    judge_backend: str | None = None,
    prompt_versions: Mapping[str, str] | None = None,
    profiles: Mapping[str, JudgeProfile] | None = None,
    extracting: bool = True,
) -> ResolvedRun:
    """The run that `score` makes of the same options, resolved once: each model's manifest
    read, a server asked what it serves, each scorer's prompt version and judge profile chosen.
    Nothing is loaded: `session` starts it.

    `prompt_versions` and `profiles` (by scorer id) pin a scorer's prompt version or judge
    profile in place of the model's own; `extracting=False` lets a classifier verifier be the
    model, for a run that only judges pairs it is given.
    """
    return resolve_run(
        model,
        engine=backend,
        engine_options=engine_options,
        scorers=scorers,
        scale=scale,
        prompt_versions=prompt_versions,
        profiles=profiles,
        judge_model=judge_model,
        judge_engine=judge_backend,
        extracting=extracting,
    )


def session(run: ResolvedRun | RunSpec, *, claim_cache: ClaimCacheLike | None = None) -> Scoring:
    """A run's engines started and its scorers built on them, for items scored a batch at a
    time (`session.scorers[id].run_many(items)`), as `score` scores each window of a dataset.
    Close it when done.

    `run` is a run `resolve` made, or a spec recorded earlier (a manifest's), resolved again
    and refused when its model, or what its server serves, is no longer the one it names.
    Claims are kept in `claim_cache` when one is given.
    """
    resolved = run if isinstance(run, ResolvedRun) else resolve_recorded(run)
    return Scoring.start(resolved, claim_cache=claim_cache)
