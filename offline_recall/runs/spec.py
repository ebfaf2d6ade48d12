"""A run spec: everything that decides a run's results, in one value that serialises.

The model (and its fingerprint), the engine and its options, each scorer with its scale,
prompt version and judge profile, decoding bounds, and the library and engine versions. The
spec builds the engine and the scorers in one place (for the command line, `verify`,
`calibrate`, the benchmarks and remote workers), identifies a run store, and heads the run's
manifest. Two runs with equal identities score the same rows the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from .._version import __version__
from ..engines import Engine, engine_kind
from ..engines.manifests import DEFAULT_MODEL, ModelManifest, load_manifest
from ..errors import ConfigurationError
from ..judging.profile import JudgeProfile, ProfileOrigin
from ..scorers import scorer_kind
from ..scorers.base import Frozen, Scorer, ScorerSetup
from ..scorers.build import build_scorer, refuse_judge
from ..scorers.recall import ID as RECALL
from ..scorers.setup import resolve_setup
from .differences import describe_differences, installed_versions


class EngineSpec(Frozen):
    name: str
    options: dict[str, Any] = Field(default_factory=dict, description="The engine's options")
    served: dict[str, Any] | None = Field(
        default=None,
        description="What a model server said about the model it serves (server engines only)",
    )


class JudgeSpec(Frozen):
    """A second pinned model that judges the pairs while the run's model extracts the claims:
    a fine-tuned verifier, generative (its own yes/no prompt) or a classifier."""

    model: str = Field(description="The judge model as given: a name or a manifest path")
    model_fingerprint: str
    engine: EngineSpec
    engine_versions: dict[str, str] = Field(
        description="Installed versions of the packages the judge's engine computes with"
    )


class ScorerSpec(Frozen):
    id: str
    setup: ScorerSetup
    profile_origin: ProfileOrigin = Field(description="Where the judge profile came from")
    profile_path: str | None = Field(default=None, description="The profile's file, if any")


class RunSpec(Frozen):
    """What decides a run's results. `identity()` is what two runs must share to be one run."""

    model: str = Field(description="The model as given: a bundled model's name or a manifest path")
    model_fingerprint: str
    engine: EngineSpec
    scorers: tuple[ScorerSpec, ...] = Field(min_length=1)
    library_version: str
    engine_versions: dict[str, str] = Field(
        description="Installed versions of the packages the engine computes with"
    )
    judge: JudgeSpec | None = Field(
        default=None, description="The model that judges, when it is not the run's model"
    )

    @property
    def scorer_ids(self) -> list[str]:
        return [s.id for s in self.scorers]

    def scorer(self, scorer_id: str) -> ScorerSpec:
        for s in self.scorers:
            if s.id == scorer_id:
                return s
        raise ConfigurationError(f"the run has no scorer {scorer_id!r}")

    def identity(self) -> dict[str, Any]:
        """The fields that can change a result, as JSON data; where a profile came from and
        how the model was named do not."""
        identity: dict[str, Any] = {
            "model_fingerprint": self.model_fingerprint,
            "engine": _engine_identity(self.engine),
            "scorers": {s.id: s.setup.model_dump(mode="json") for s in self.scorers},
            "library_version": self.library_version,
            "engine_versions": self.engine_versions,
        }
        if self.judge is not None:  # absent otherwise: runs without one keep their identity
            identity["judge"] = {
                "model_fingerprint": self.judge.model_fingerprint,
                "engine": _engine_identity(self.judge.engine),
                "engine_versions": self.judge.engine_versions,
            }
        return identity

    @property
    def digest(self) -> str:
        """A short hash of the identity: results carry it, so runs can be told apart."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def differences(self, other: RunSpec) -> list[str]:
        """How `other` differs from this spec: each differing field, with both values when
        they are short."""
        return describe_differences(self.identity(), other.identity())

    def load_manifest(self) -> ModelManifest:
        """The model's manifest, refused when the model (or what a server serves) is no longer
        the one the spec names."""
        return _checked_manifest(self.model, self.model_fingerprint, self.engine)

    def load_judge_manifest(self) -> ModelManifest | None:
        """The judge model's manifest (None without one), refused when it changed."""
        if self.judge is None:
            return None
        return _checked_manifest(self.judge.model, self.judge.model_fingerprint, self.judge.engine)

    def build(self, *, claim_cache: Any = None) -> Scoring:
        """The engine (and the judge's) and the scorers this spec describes."""
        engine = _started(self.engine, self.load_manifest())
        judge_manifest = self.load_judge_manifest()
        judge = None
        if self.judge is not None and judge_manifest is not None:
            try:
                judge = _started(self.judge.engine, judge_manifest)
            except BaseException:
                engine.close()
                raise
        return self.build_on(engine, claim_cache=claim_cache, judge=judge)

    def build_on(
        self, engine: Engine, *, claim_cache: Any = None, judge: Engine | None = None
    ) -> Scoring:
        """The scorers on engines already running (each must report the spec's fingerprint)."""
        _check_runs(engine, self.model_fingerprint)
        if (judge is None) != (self.judge is None):
            raise ConfigurationError(
                "the spec names a judge model: pass its engine"
                if judge is None
                else "the spec names no judge model"
            )
        if judge is not None and self.judge is not None:
            _check_runs(judge, self.judge.model_fingerprint)
        # The judging model's own question, when its manifest names one (its text is part of
        # that model's fingerprint, checked above).
        judge_prompt = load_manifest(
            self.judge.model if self.judge else self.model
        ).judge_prompt_text()
        scorers = {
            s.id: build_scorer(
                scorer_kind(s.id),
                engine,
                None,
                s.setup,
                claim_cache=claim_cache,
                judge=judge,
                judge_prompt=judge_prompt,
            )
            for s in self.scorers
        }
        return Scoring(
            engine=engine,
            scorers=scorers,
            window=engine_kind(self.engine.name).window,
            judge=judge,
        )


@dataclass
class Scoring:
    """A spec built: its engine (and the judge's, if any), its scorers by id, and the batch
    size for bulk runs."""

    engine: Engine
    scorers: dict[str, Scorer]
    window: int
    judge: Engine | None = None

    def close(self) -> None:
        try:
            self.engine.close()
        finally:
            if self.judge is not None:
                self.judge.close()


def _engine_identity(spec: EngineSpec) -> dict[str, Any]:
    kind = engine_kind(spec.name)
    engine: dict[str, Any] = {
        "name": spec.name,
        "options": kind.identity_options(kind.parse_options(spec.options)),
    }
    if spec.served is not None:
        engine["served"] = spec.served
    return engine


def _checked_manifest(model: str, fingerprint: str, engine: EngineSpec) -> ModelManifest:
    manifest = load_manifest(model)
    kind = engine_kind(engine.name)
    options = kind.parse_options(engine.options)
    now = kind.fingerprint(manifest, options)
    if now != fingerprint:
        raise ConfigurationError(
            f"the model {model} is now {now}; the run used {fingerprint}: install the run's model"
        )
    served = kind.served(manifest, options)
    if served != engine.served:
        raise ConfigurationError(
            f"the server now serves {_described(served)}; the run used "
            f"{_described(engine.served)}: serve the run's model"
        )
    return manifest


def _started(spec: EngineSpec, manifest: ModelManifest) -> Engine:
    kind = engine_kind(spec.name)
    return kind.factory(manifest, kind.parse_options(spec.options))


def _check_runs(engine: Engine, fingerprint: str) -> None:
    if engine.identity.fingerprint != fingerprint:
        raise ConfigurationError(
            f"the engine runs {engine.identity.fingerprint}, the spec names {fingerprint}"
        )


def _described(served: dict[str, Any] | None) -> str:
    if served is None:
        return "nothing"
    return ", ".join(f"{k} {v}" for k, v in served.items() if v is not None)


def resolve_spec(
    model: str = DEFAULT_MODEL,
    *,
    engine: str = "transformers",
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
    """The spec of a run: the model's manifest read, each scorer's prompt version and judge
    profile chosen as a scorer built for that model would choose them. Nothing is loaded.

    `judge_model` names a second pinned model (a fine-tuned verifier) that judges the pairs
    on `judge_engine` (default: the run's engine) while `model` extracts the claims; judge
    profiles and the plain threshold are then the judge model's.
    """
    if not scorers:
        raise ConfigurationError("a run needs at least one scorer")
    if len(set(scorers)) != len(scorers):
        raise ConfigurationError(f"a scorer is named twice: {', '.join(scorers)}")
    kind = engine_kind(engine)
    options = kind.parse_options(engine_options)
    manifest = load_manifest(model)
    fingerprint = kind.fingerprint(manifest, options)
    if extracting and not manifest.can_generate:
        raise ConfigurationError(
            f"{manifest.name} is a classifier verifier and writes no claims: name a chat model "
            f"as the model and {model} as the judge model"
        )
    judge = None
    judge_manifest = manifest
    judge_fingerprint = fingerprint
    if judge_model is not None:
        judge_kind = engine_kind(judge_engine or engine)
        judge_options = judge_kind.parse_options(judge_engine_options)
        judge_manifest = load_manifest(judge_model)
        judge_fingerprint = judge_kind.fingerprint(judge_manifest, judge_options)
        judge = JudgeSpec(
            model=str(judge_model),
            model_fingerprint=judge_fingerprint,
            engine=EngineSpec(
                name=judge_kind.name,
                options=judge_options.model_dump(mode="json"),
                served=judge_kind.served(judge_manifest, judge_options),
            ),
            engine_versions=installed_versions(judge_kind.distributions),
        )
    specs = []
    for scorer_id in scorers:
        scorer = scorer_kind(scorer_id)
        if judge is not None:
            refuse_judge(scorer)
        resolved = resolve_setup(
            scorer,
            fingerprint=judge_fingerprint,
            scorers=manifest.scorers,
            manifest_prompt_version=manifest.prompt_version,
            threshold=judge_manifest.threshold,
            decoding=manifest.decoding,
            scale=scale,
            prompt_version=(prompt_versions or {}).get(scorer_id),
            profile=(profiles or {}).get(scorer_id),
        )
        path = resolved.found.path
        specs.append(
            ScorerSpec(
                id=scorer_id,
                setup=resolved.setup,
                profile_origin=resolved.found.origin,
                profile_path=None if path is None else str(path),
            )
        )
    return RunSpec(
        model=str(model),
        model_fingerprint=fingerprint,
        engine=EngineSpec(
            name=engine,
            options=options.model_dump(mode="json"),
            served=kind.served(manifest, options),
        ),
        scorers=tuple(specs),
        library_version=__version__,
        engine_versions=installed_versions(kind.distributions),
        judge=judge,
    )
