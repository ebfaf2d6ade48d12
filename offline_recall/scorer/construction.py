"""The one way a scorer is built: from the Python API (`create_*_scorer`) and from a run spec.

`build_scorer` puts a scorer on engines that run already, with its setup resolved;
`create_scorer` first loads the model, starts its engine and resolves the setup the way a run
spec does, then builds through `build_scorer` (a scorer that asks no model gets an engine
started only if it is asked something: none is loaded). `scorer_factory` makes a built-in
scorer's `create_*_scorer` function, which calls `create_scorer` with its class.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict, TypeVar, Unpack, overload

from ..engines import AUTO, Engine, resolve_model
from ..engines.deferred import DeferredEngine
from ..engines.manifests import DEFAULT_MODEL, ModelManifest
from ..errors import ConfigurationError
from ..judging.profile import JudgeProfile
from .builtins import BUILTINS, creator_name
from .declaration import ScorerDefinition
from .inputs import ScorerOptions
from .judge_setup import resolve_setup
from .pipeline import Built, ClaimCacheLike, Pipeline
from .results import ScorerSetup

P = TypeVar("P", bound=Pipeline[Any, Any, Any])
P_co = TypeVar("P_co", bound=Pipeline[Any, Any, Any], covariant=True)
OT = TypeVar("OT", bound=ScorerOptions)
OT_contra = TypeVar("OT_contra", bound=ScorerOptions, contravariant=True)


class EngineChoices(TypedDict, total=False):
    """How a scorer's model runs and what decides its results, as the `create_*_scorer`
    functions take them (by keyword; each may be left out)."""

    engine: str
    """The engine that runs a named model (default "auto": the model's own, see
    `engines.chosen_engine`); unused for a ready `Engine`."""
    engine_options: dict[str, Any] | None
    """The engine's options for a named model (see the engine's documentation)."""
    profile: JudgeProfile | None
    """The judge profile that decides, in place of the calibrated or shipped one."""
    prompt_version: str | None
    """The prompt version, in place of the one the model's manifest names or the latest."""


class ClaimChoices(EngineChoices, total=False):
    """`EngineChoices`, and what a scorer on claims takes besides."""

    claim_cache: ClaimCacheLike | None
    """Keeps extracted claims across runs (one cache can serve recall and faithfulness)."""
    judge: str | ModelManifest | None
    """A second pinned model (a fine-tuned verifier) that judges the claims while `model`
    extracts them."""
    judge_engine: str | None
    """The engine that runs `judge` (default: `engine`)."""


def refuse_judge(scorer: type[ScorerDefinition]) -> None:
    """Refuses a separate judge model for a scorer that asks its own model only."""
    if not scorer.separate_judge:
        raise ConfigurationError(f"{scorer.id} cannot be judged by a separate judge model")


def build_scorer(
    scorer: type[P],
    engine: Engine,
    options: ScorerOptions | None,
    setup: ScorerSetup,
    **built: Unpack[Built],
) -> P:
    """`scorer` (a scorer class) on `engine` (and `judge`, a verifier, when given).

    `judge_prompt` is the judging model's own yes/no question (its manifest's judge prompt
    file): scorers that judge claims against the context (those that take a separate judge)
    ask it; the others ask their own question and are not given it. A separate judge for a
    scorer that takes none is refused.
    """
    if built.get("judge") is not None:
        refuse_judge(scorer)
    if not scorer.separate_judge:
        built.pop("judge_prompt", None)
    return scorer(engine, options, setup, **built)


def create_scorer(
    scorer: type[P],
    model: str | ModelManifest | Engine,
    options: ScorerOptions | None,
    *,
    engine: str = AUTO,
    engine_options: dict[str, Any] | None = None,
    claim_cache: ClaimCacheLike | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
    judge: str | ModelManifest | None = None,
    judge_engine: str | None = None,
) -> P:
    """`scorer` (a scorer class) on a model given by name, manifest or ready engine (see the
    `create_*_scorer` functions, and `EngineChoices` and `ClaimChoices` for the keywords), its
    setup resolved as a run spec resolves it. None for `options` builds the scorer's options
    with no argument: refused, naming the scorer's metric, where a context source is required."""
    if options is None:
        options = scorer.options_type()  # raises where a context source is required
    if judge is not None:
        refuse_judge(scorer)
    manifest: ModelManifest | None = None
    if isinstance(model, Engine):
        built = model
    else:
        resolved = resolve_model(engine, model, engine_options)
        manifest = resolved.manifest
        if not scorer.asks_model():  # a rule: the model is started only if it is asked
            built = DeferredEngine(resolved.start, resolved.fingerprint)
            setup = resolve_setup(
                scorer,
                fingerprint=resolved.fingerprint,
                scorers=manifest.scorers,
                manifest_prompt_version=manifest.prompt_version,
                threshold=manifest.threshold,
                scale=options.scale,
            )
            return build_scorer(scorer, built, options, setup.setup, claim_cache=claim_cache)
        built = resolved.start()
    judging = manifest
    judge_built = None
    if judge is not None:
        judged = resolve_model(judge_engine or engine, judge)
        judging = judged.manifest
        judge_built = judged.start()
    identity = (judge_built or built).identity
    setup = resolve_setup(
        scorer,
        fingerprint=identity.fingerprint,
        scorers=built.identity.scorers,
        manifest_prompt_version=built.identity.prompt_version,
        threshold=judging.threshold if judging is not None else 0.5,
        stated_p_yes=judging.stated_p_yes if judging is not None else None,
        vetoes=judging.vetoes if judging is not None else (),
        decoding=manifest.decoding if manifest is not None else None,
        scale=options.scale,
        prompt_version=prompt_version,
        profile=profile,
    )
    return build_scorer(
        scorer,
        built,
        options,
        setup.setup,
        claim_cache=claim_cache,
        judge=judge_built,
        judge_prompt=None if judging is None else judging.judge_prompt_text(),
    )


class ScorerCreator(Protocol[P_co, OT_contra]):
    """A `create_*_scorer` function that takes `EngineChoices` (see `scorer_factory`)."""

    def __call__(
        self,
        model: str | ModelManifest | Engine = DEFAULT_MODEL,
        options: OT_contra | None = None,
        **choices: Unpack[EngineChoices],
    ) -> P_co: ...


class ClaimScorerCreator(Protocol[P_co, OT_contra]):
    """A `create_*_scorer` function that takes `ClaimChoices` (see `scorer_factory`)."""

    def __call__(
        self,
        model: str | ModelManifest | Engine = DEFAULT_MODEL,
        options: OT_contra | None = None,
        **choices: Unpack[ClaimChoices],
    ) -> P_co: ...


@overload
def scorer_factory(
    scorer: type[P], options_type: type[OT], choices: type[ClaimChoices], doc: str
) -> ClaimScorerCreator[P, OT]: ...


@overload
def scorer_factory(
    scorer: type[P], options_type: type[OT], choices: type[EngineChoices], doc: str
) -> ScorerCreator[P, OT]: ...


def scorer_factory(
    scorer: type[P], options_type: type[OT], choices: type[EngineChoices], doc: str
) -> ScorerCreator[P, OT] | ClaimScorerCreator[P, OT]:
    """`scorer`'s `create_*_scorer` function, named from its id and documented by `doc`: it
    takes a model (a bundled model's name, a manifest or a ready `Engine`; `DEFAULT_MODEL`
    when left out), the scorer's options (`options_type`, which must be its `options_type`;
    None builds them with no argument) and the keywords `choices` types, and builds the
    scorer with `create_scorer`. A built-in scorer's function belongs to its package (its
    entry in builtins.py); its signature reads as if written there."""
    if options_type is not scorer.options_type:
        raise TypeError(f"{scorer.__name__} takes {scorer.options_type.__name__} as its options")

    def create(
        model: str | ModelManifest | Engine = DEFAULT_MODEL,
        options: OT | None = None,
        **choices: Any,
    ) -> P:
        return create_scorer(scorer, model, options, **choices)

    create.__name__ = create.__qualname__ = creator_name(scorer.id)
    found = BUILTINS.get(scorer.id)
    create.__module__ = scorer.__module__ if found is None else found.module
    create.__doc__ = doc
    create.__annotations__ = {
        "model": "str | ModelManifest | Engine",
        "options": f"{options_type.__name__} | None",
        "choices": f"Unpack[{choices.__name__}]",
        "return": scorer.__name__,
    }
    return create
