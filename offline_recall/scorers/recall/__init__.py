"""Context recall: how much of the ground truth the retrieved context supports.

Ground truth -> atomic claims (the model, under a JSON grammar) -> a verdict per claim against
each chunk (a judge profile over the model's yes/no and cheap signals) -> the supported share.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...engines import Engine, create_engine
from ...engines.manifests import DEFAULT_MODEL, ModelManifest, load_manifest
from ...judging.labelled import claim_statement
from ...judging.profile import JudgeProfile
from ..base import ScorerKind, ScorerSetup
from ..context import ContextOptions
from ..setup import resolve_setup
from .prompts import available_versions, prompt_file
from .result import ClaimVerdict, RecallResult
from .scorer import DESCRIPTION, ID, NAME, ClaimStore, ContextRecallScorer


class ContextRecallOptions(ContextOptions):
    """Context recall's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context recall"


def _build(
    engine: Engine,
    options: ContextOptions | None,
    setup: ScorerSetup,
    claim_cache: Any,
    *,
    judge: Engine | None = None,
    judge_prompt: str | None = None,
) -> ContextRecallScorer:
    return ContextRecallScorer(
        engine, options, setup, claim_cache, judge=judge, judge_prompt=judge_prompt
    )


def _default_prompt_version(named: str | None) -> str:
    return named or available_versions()[-1]


def _arrow_fields() -> list[tuple[str, Any]]:
    import pyarrow as pa

    verdict = pa.struct(
        [
            ("claim", pa.string()),
            ("supported", pa.bool_()),
            ("probability", pa.float64()),
            ("model_p_yes", pa.float64()),
            ("chunk_index", pa.int64()),
        ]
    )
    return [("verdicts", pa.list_(verdict)), ("expected_recall", pa.float64())]


KIND = ScorerKind(
    id=ID,
    name=NAME,
    description=DESCRIPTION,
    result_type=RecallResult,
    measure="recall",
    unit="claims",
    positive="supported",
    prompt_versions=available_versions,
    default_prompt_version=_default_prompt_version,
    build=_build,
    prompt_file=prompt_file,
    arrow_fields=_arrow_fields,
    labelled_statement=claim_statement,
    separate_judge=True,
)


def create_context_recall_scorer(
    model: str | ModelManifest | Engine = DEFAULT_MODEL,
    options: ContextRecallOptions | None = None,
    *,
    engine: str = "transformers",
    engine_options: dict[str, Any] | None = None,
    claim_cache: ClaimStore | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
    judge: str | ModelManifest | None = None,
    judge_engine: str | None = None,
) -> ContextRecallScorer:
    """A context recall scorer on a local, pinned model.

    `model` is a bundled model's name, a manifest (or its path), or a ready `Engine`; `engine`
    and `engine_options` say how a named model runs. `options` says where the context comes
    from (required: construction fails without `context` or `context_extractor`).
    `claim_cache` keeps extracted claims across runs. `profile` and `prompt_version` override
    what the model's manifest and calibration would choose. `judge` names a second pinned
    model (a fine-tuned verifier) that judges the claims on `judge_engine` (default: `engine`)
    while `model` extracts them.
    """
    if options is None:
        options = ContextRecallOptions()  # raises: a context source is required
    manifest: ModelManifest | None = None
    if isinstance(model, Engine):
        built = model
    else:
        manifest = model if isinstance(model, ModelManifest) else load_manifest(model)
        built = create_engine(engine, manifest, engine_options)
    judging = manifest
    judge_built = None
    if judge is not None:
        judging = judge if isinstance(judge, ModelManifest) else load_manifest(judge)
        judge_built = create_engine(judge_engine or engine, judging)
    identity = (judge_built or built).identity
    resolved = resolve_setup(
        KIND,
        fingerprint=identity.fingerprint,
        manifest_prompt_version=built.identity.prompt_version,
        threshold=judging.threshold if judging is not None else 0.5,
        decoding=manifest.decoding if manifest is not None else None,
        scale=options.scale,
        prompt_version=prompt_version,
        profile=profile,
    )
    return ContextRecallScorer(
        built,
        options,
        resolved.setup,
        claim_cache,
        judge=judge_built,
        judge_prompt=None if judging is None else judging.judge_prompt_text(),
    )


__all__ = [
    "ID",
    "KIND",
    "ClaimStore",
    "ClaimVerdict",
    "ContextRecallOptions",
    "ContextRecallScorer",
    "RecallResult",
    "create_context_recall_scorer",
]
