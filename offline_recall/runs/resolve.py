"""A run resolved once: its spec, and the manifests, engine options and servers' answers it
was made from.

`resolve_run` reads each model's manifest once, checks the engine's options, asks a server
engine's server once which model it serves, and chooses each scorer's prompt version and judge
profile. `resolve_recorded` resolves a spec recorded earlier (`verify`, Ray workers, a run
resumed through the Python API) the same way, refused when the model, or what the server
serves, is no longer the one the spec names. Starting the engines from either
(`score.session`) reads no manifest and asks no server again. `score.resolve` is the way in:
the same run as `score` makes of the same options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..engines import AUTO, ResolvedModel, resolve_model
from ..engines.manifests import DEFAULT_MODEL
from ..errors import ConfigurationError
from ..judging.profile import JudgeProfile
from ..scorer.construction import refuse_judge
from ..scorer.judge_setup import resolve_setup
from ..scorer.registry import RECALL, scorer_kind
from .differences import installed_versions
from .spec import EngineSpec, JudgeSpec, RunSpec, ScorerSpec


@dataclass(frozen=True)
class ResolvedRun:
    """A run's spec with what it was resolved from: the run's model (manifest, engine, parsed
    options, what its server said) and the judge model's, when another model judges. The judge
    profiles are in the spec's scorer setups."""

    spec: RunSpec
    model: ResolvedModel
    judge: ResolvedModel | None = None

    @property
    def judging(self) -> ResolvedModel:
        """The model that judges: the judge model, else the run's model."""
        return self.judge or self.model


def _engine_spec(resolved: ResolvedModel) -> EngineSpec:
    served = resolved.served
    return EngineSpec(
        name=resolved.kind.name,
        options=resolved.options.model_dump(mode="json"),
        served=None if served is None else served.model_dump(mode="json"),
    )


def _judge_spec(model: str, judged: ResolvedModel) -> JudgeSpec:
    """What identifies the second model that judges a run's pairs."""
    return JudgeSpec(
        model=model,
        model_fingerprint=judged.fingerprint,
        engine=_engine_spec(judged),
        engine_versions=installed_versions(judged.kind.distributions),
    )


def resolve_run(
    model: str = DEFAULT_MODEL,
    *,
    engine: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    scorers: Sequence[str] = (RECALL,),
    scale: float | None = 1.0,
    prompt_versions: Mapping[str, str] | None = None,
    profiles: Mapping[str, JudgeProfile] | None = None,
    judge_model: str | None = None,
    judge_engine: str | None = None,
    judge_engine_options: Mapping[str, Any] | None = None,
    extracting: bool = True,
) -> ResolvedRun:
    """A run resolved: the model's manifest read, a server asked what it serves, each
    scorer's prompt version and judge profile chosen as a scorer built for that model would
    choose them. Nothing is loaded.

    `judge_model` names a second pinned model (a fine-tuned verifier) that judges the pairs
    on `judge_engine` (default: the run's engine) while `model` extracts the claims; judge
    profiles and the plain threshold are then the judge model's.
    """
    if not scorers:
        raise ConfigurationError("a run needs at least one scorer")
    if len(set(scorers)) != len(scorers):
        raise ConfigurationError(f"a scorer is named twice: {', '.join(scorers)}")
    resolved = resolve_model(engine, model, engine_options)
    manifest = resolved.manifest
    if extracting and not manifest.can_generate:
        raise ConfigurationError(
            f"{manifest.name} is a classifier verifier and writes no claims: name a chat model "
            f"as the model and {model} as the judge model"
        )
    judged = None
    if judge_model is not None:
        judged = resolve_model(judge_engine or engine, judge_model, judge_engine_options)
    judge = None if judged is None else _judge_spec(str(judge_model), judged)
    judging = judged or resolved
    specs = []
    for scorer_id in scorers:
        scorer = scorer_kind(scorer_id)
        if judge is not None:
            refuse_judge(scorer)
        found = resolve_setup(
            scorer,
            fingerprint=judging.fingerprint,
            scorers=manifest.scorers,
            manifest_prompt_version=manifest.prompt_version,
            threshold=judging.manifest.threshold,
            stated_p_yes=judging.manifest.stated_p_yes,
            vetoes=judging.manifest.vetoes,
            decoding=manifest.decoding,
            scale=scale,
            prompt_version=(prompt_versions or {}).get(scorer_id),
            profile=(profiles or {}).get(scorer_id),
        )
        path = found.found.path
        specs.append(
            ScorerSpec(
                id=scorer_id,
                setup=found.setup,
                profile_origin=found.found.origin,
                profile_path=None if path is None else str(path),
            )
        )
    spec = RunSpec(
        model=str(model),
        model_fingerprint=resolved.fingerprint,
        engine=_engine_spec(resolved),
        scorers=tuple(specs),
        library_version=__version__,
        engine_versions=installed_versions(resolved.kind.distributions),
        judge=judge,
    )
    return ResolvedRun(spec=spec, model=resolved, judge=judged)


def resolve_spec(
    model: str = DEFAULT_MODEL,
    *,
    engine: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    scorers: Sequence[str] = (RECALL,),
    scale: float | None = 1.0,
    prompt_versions: Mapping[str, str] | None = None,
    profiles: Mapping[str, JudgeProfile] | None = None,
    judge_model: str | None = None,
    judge_engine: str | None = None,
    judge_engine_options: Mapping[str, Any] | None = None,
    extracting: bool = True,
) -> RunSpec:
    """The spec of a run (see `resolve_run`, which also keeps what the spec was made from)."""
    return resolve_run(
        model,
        engine=engine,
        engine_options=engine_options,
        scorers=scorers,
        scale=scale,
        prompt_versions=prompt_versions,
        profiles=profiles,
        judge_model=judge_model,
        judge_engine=judge_engine,
        judge_engine_options=judge_engine_options,
        extracting=extracting,
    ).spec


def resolve_recorded(spec: RunSpec) -> ResolvedRun:
    """A recorded spec resolved again, each model once: refused when a model (or what its
    server serves) is no longer the one the spec names."""
    model = _recorded(spec.model, spec.model_fingerprint, spec.engine)
    judge = None
    if spec.judge is not None:
        judge = _recorded(spec.judge.model, spec.judge.model_fingerprint, spec.judge.engine)
    return ResolvedRun(spec=spec, model=model, judge=judge)


def _recorded(model: str, fingerprint: str, engine: EngineSpec) -> ResolvedModel:
    resolved = resolve_model(engine.name, model, engine.options)
    now = resolved.fingerprint
    if now != fingerprint:
        raise ConfigurationError(
            f"the model {model} is now {now}; the run used {fingerprint}: install the run's model"
        )
    served = _engine_spec(resolved).served
    if served != engine.served:
        raise ConfigurationError(
            f"the server now serves {_described(served)}; the run used "
            f"{_described(engine.served)}: serve the run's model"
        )
    return resolved


def _described(served: dict[str, Any] | None) -> str:
    if served is None:
        return "nothing"
    return ", ".join(f"{k} {v}" for k, v in served.items() if v is not None)
