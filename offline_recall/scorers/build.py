"""The one way a scorer is built: from the Python API (`create_*_scorer`) and from a run spec.

`build_scorer` puts a scorer on engines that run already, with its setup resolved;
`create_scorer` first loads the model, starts its engine and resolves the setup the way a run
spec does, then builds through `build_scorer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engines import Engine, resolve_model
from ..engines.manifests import ModelManifest
from ..errors import ConfigurationError
from ..judging.profile import JudgeProfile
from .base import Scorer, ScorerKind, ScorerSetup
from .context import ContextOptions
from .setup import resolve_setup

if TYPE_CHECKING:
    from .recall.extraction import ClaimStore


def refuse_judge(kind: ScorerKind) -> None:
    """Refuses a separate judge model for a scorer that asks its own model only."""
    if not kind.separate_judge:
        raise ConfigurationError(f"{kind.id} cannot be judged by a separate judge model")


def build_scorer(
    kind: ScorerKind,
    engine: Engine,
    options: ContextOptions | None,
    setup: ScorerSetup,
    *,
    claim_cache: ClaimStore | None = None,
    judge: Engine | None = None,
    judge_prompt: str | None = None,
) -> Scorer:
    """`kind`'s scorer on `engine` (and `judge`, a verifier, when given).

    `judge_prompt` is the judging model's own yes/no question (its manifest's judge prompt
    file): scorers that judge claims against the context (those that take a separate judge)
    ask it; the others ask their own question and leave it unused. A separate judge for a
    scorer that takes none is refused.
    """
    if judge is not None:
        refuse_judge(kind)
    return kind.build(
        engine,
        options,
        setup,
        claim_cache=claim_cache,
        judge=judge,
        judge_prompt=judge_prompt if kind.separate_judge else None,
    )


def create_scorer(
    kind: ScorerKind,
    model: str | ModelManifest | Engine,
    options: ContextOptions,
    *,
    engine: str = "transformers",
    engine_options: dict[str, Any] | None = None,
    claim_cache: ClaimStore | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
    judge: str | ModelManifest | None = None,
    judge_engine: str | None = None,
) -> Scorer:
    """`kind`'s scorer on a model given by name, manifest or ready engine (see the
    `create_*_scorer` functions), its setup resolved as a run spec resolves it."""
    if judge is not None:
        refuse_judge(kind)
    manifest: ModelManifest | None = None
    if isinstance(model, Engine):
        built = model
    else:
        resolved = resolve_model(engine, model, engine_options)
        manifest = resolved.manifest
        built = resolved.start()
    judging = manifest
    judge_built = None
    if judge is not None:
        judged = resolve_model(judge_engine or engine, judge)
        judging = judged.manifest
        judge_built = judged.start()
    identity = (judge_built or built).identity
    setup = resolve_setup(
        kind,
        fingerprint=identity.fingerprint,
        scorers=built.identity.scorers,
        manifest_prompt_version=built.identity.prompt_version,
        threshold=judging.threshold if judging is not None else 0.5,
        decoding=manifest.decoding if manifest is not None else None,
        scale=options.scale,
        prompt_version=prompt_version,
        profile=profile,
    )
    return build_scorer(
        kind,
        built,
        options,
        setup.setup,
        claim_cache=claim_cache,
        judge=judge_built,
        judge_prompt=None if judging is None else judging.judge_prompt_text(),
    )
