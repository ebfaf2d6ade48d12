"""A scorer's setup for a model: its prompt version and the judge profile that decides."""

from __future__ import annotations

from typing import NamedTuple

from ..engines.manifests import Decoding
from ..judging.profile import FoundProfile, JudgeProfile, ProfileOrigin, find_profile
from .base import ScorerKind, ScorerSetup


class ResolvedSetup(NamedTuple):
    setup: ScorerSetup
    found: FoundProfile


def resolve_setup(
    kind: ScorerKind,
    *,
    fingerprint: str,
    manifest_prompt_version: str | None,
    threshold: float,
    decoding: Decoding | None = None,
    scale: float | None = 1.0,
    prompt_version: str | None = None,
    profile: JudgeProfile | None = None,
) -> ResolvedSetup:
    """What decides `kind`'s results on a model: the prompt version asked for (else the one
    the model's manifest names, else the scorer's latest) and the profile given (else the
    user's calibrated one, else the shipped one, else the manifest's plain threshold)."""
    version = prompt_version or kind.default_prompt_version(manifest_prompt_version)
    if version not in kind.prompt_versions():
        kind.prompt_file(version)  # raises, naming the known versions
    found = (
        FoundProfile(profile, ProfileOrigin.GIVEN, None)
        if profile is not None
        else find_profile(kind.profile_id, fingerprint, version, threshold)
    )
    decoding = decoding or Decoding()
    setup = ScorerSetup(
        scale=scale or 1.0,
        prompt_version=version,
        judge_profile=found.profile,
        max_new_tokens=decoding.max_new_tokens,
        max_items=decoding.max_claims,
    )
    return ResolvedSetup(setup, found)
