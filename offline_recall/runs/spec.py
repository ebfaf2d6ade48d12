"""A run spec: everything that decides a run's results, in one value that serialises.

The model (and its fingerprint), the engine and its options, each scorer with its scale,
prompt version and judge profile, decoding bounds, and the library and engine versions. The
spec identifies a run store and heads the run's manifest; two runs with equal identities score
the same rows the same way. It is made by resolving a run (`runs/resolve.py`: the manifests
read and a server asked once) and scored by the session started from that resolution
(`runs/score.py`: `session(spec)` for a spec recorded earlier).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import Field

from ..engines import engine_kind
from ..errors import ConfigurationError
from ..judging.profile import ProfileOrigin
from ..scorer.results import Frozen, ScorerSetup
from .differences import describe_differences


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

    def identity(self, scorer: str | None = None) -> dict[str, Any]:
        """The fields that can change a result, as JSON data; where a profile came from and
        how the model was named do not. With `scorer`, those that can change that scorer's
        results: the others' setups are left out."""
        identity: dict[str, Any] = {
            "model_fingerprint": self.model_fingerprint,
            "engine": _engine_identity(self.engine),
            # A judge's card measures its rule and cannot change a result.
            "scorers": {
                s.id: s.setup.model_dump(mode="json", exclude={"judge_profile": {"card"}})
                for s in self.scorers
                if scorer is None or s.id == scorer
            },
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

    def differences(self, other: RunSpec, scorer: str | None = None) -> list[str]:
        """How `other` differs from this spec: each differing field, with both values when
        they are short; with `scorer`, only where that scorer's results could differ (the
        runs' other scorers are not compared)."""
        return describe_differences(self.identity(scorer), other.identity(scorer))


def _engine_identity(spec: EngineSpec) -> dict[str, Any]:
    kind = engine_kind(spec.name)
    engine: dict[str, Any] = {
        "name": spec.name,
        "options": kind.identity_options(kind.parse_options(spec.options)),
    }
    if spec.served is not None:
        engine["served"] = spec.served
    return engine
