"""A scorer's setup for a model: its prompt version and the judge profile that decides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..engines.base import ScorerDefaults
from ..engines.manifests import Decoding, Veto
from ..judging.profile import FoundProfile, JudgeProfile, ProfileOrigin, find_profile
from .declaration import ScorerDefinition
from .results import ScorerSetup


class ResolvedSetup(NamedTuple):
    setup: ScorerSetup
    found: FoundProfile


def resolve_setup(
    scorer: type[ScorerDefinition],
    *,
    fingerprint: str,
    scorers: Mapping[str, ScorerDefaults],
    manifest_prompt_version: str | None,
    threshold: float,
    stated_p_yes: float | None = None,
    vetoes: tuple[Veto, ...] = (),
    decoding: Decoding | None = None,
    scale: float | None = 1.0,
    prompt_version: str | None = None,
    profile: JudgeProfile | None = None,
) -> ResolvedSetup:
    """What decides `scorer`'s results on a model: the prompt version asked for (else the one
    the model's manifest names for the scorer, else the scorer's latest), the list bound the
    manifest names, and the profile given (else the user's calibrated one, else the shipped
    one, else the manifest's plain threshold with its `stated_p_yes` and `vetoes`).

    `scorers` are the manifest's `[scorers.<id>]` tables: the scorer's own, else that of the
    scorer whose prompts and profiles it shares; `manifest_prompt_version` and `decoding`'s
    `max_claims` are their older spellings, read when the table does not say."""
    own = scorers.get(scorer.id) or scorers.get(scorer.profile_id()) or ScorerDefaults()
    version = (
        prompt_version
        or own.prompt_version
        or scorer.default_prompt_version(manifest_prompt_version)
    )
    if version not in scorer.prompt_versions():
        scorer.prompt_file(version)  # raises, naming the known versions
    found = (
        FoundProfile(profile, ProfileOrigin.GIVEN, None)
        if profile is not None
        else find_profile(
            scorer.profile_id(), fingerprint, version, threshold, stated_p_yes, vetoes
        )
    )
    decoding = decoding or Decoding()
    setup = ScorerSetup(
        scale=scale or 1.0,
        prompt_version=version,
        judge_profile=found.profile,
        max_new_tokens=decoding.max_new_tokens,
        max_items=own.max_items or decoding.max_claims,
    )
    return ResolvedSetup(setup, found)
