"""Context precision: whether the retrieved chunks are relevant to the expected answer, and
ranked first.

Each chunk -> a relevance verdict against the question and expected answer (a judge profile
over the model's yes/no and cheap signals) -> mean average precision in retrieved order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...engines import Engine, create_engine
from ...engines.manifests import DEFAULT_MODEL, ModelManifest, load_manifest
from ...errors import ConfigurationError
from ...judging.profile import JudgeProfile
from ..base import ScorerKind, ScorerSetup
from ..context import ContextOptions
from ..setup import resolve_setup
from .prompts import available_versions, prompt_file, target
from .result import ChunkVerdict, PrecisionResult
from .score import average_precision
from .scorer import DESCRIPTION, ID, NAME, ContextPrecisionScorer


class ContextPrecisionOptions(ContextOptions):
    """Context precision's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context precision"


def _build(
    engine: Engine,
    options: ContextOptions | None,
    setup: ScorerSetup,
    _claim_cache: Any,
    *,
    judge: Engine | None = None,
    judge_prompt: str | None = None,
) -> ContextPrecisionScorer:
    if judge is not None or judge_prompt is not None:
        raise ConfigurationError("context precision asks its own model; it takes no judge model")
    return ContextPrecisionScorer(engine, options, setup)


def _default_prompt_version(_recall_version: str | None) -> str:
    # A model's manifest names context recall's prompts; precision uses its latest.
    return available_versions()[-1]


def _labelled_statement(record: Mapping[str, Any]) -> str:
    """A labelled precision row's statement: its question (optional) and answer."""
    answer, question = record.get("answer"), record.get("question")
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("answer must be a non-empty string")
    if question is not None and not isinstance(question, str):
        raise ValueError("question must be a string")
    return target(question, answer)


def _arrow_fields() -> list[tuple[str, Any]]:
    import pyarrow as pa

    verdict = pa.struct(
        [
            ("chunk_index", pa.int64()),
            ("relevant", pa.bool_()),
            ("probability", pa.float64()),
            ("model_p_yes", pa.float64()),
        ]
    )
    return [("verdicts", pa.list_(verdict))]


KIND = ScorerKind(
    id=ID,
    name=NAME,
    description=DESCRIPTION,
    result_type=PrecisionResult,
    measure="precision",
    unit="chunks",
    positive="relevant",
    prompt_versions=available_versions,
    default_prompt_version=_default_prompt_version,
    build=_build,
    prompt_file=prompt_file,
    arrow_fields=_arrow_fields,
    labelled_statement=_labelled_statement,
)


def create_context_precision_scorer(
    model: str | ModelManifest | Engine = DEFAULT_MODEL,
    options: ContextPrecisionOptions | None = None,
    *,
    engine: str = "transformers",
    engine_options: dict[str, Any] | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
) -> ContextPrecisionScorer:
    """A context precision scorer on a local, pinned model.

    The same arguments as `create_context_recall_scorer`: `model` is a bundled model's name,
    a manifest (or its path), or a ready `Engine` (one engine can serve both scorers);
    `options` says where the context comes from (required: construction fails without
    `context` or `context_extractor`, or with an empty `context`).
    """
    if options is None:
        options = ContextPrecisionOptions()  # raises: a context source is required
    manifest: ModelManifest | None = None
    if isinstance(model, Engine):
        built = model
    else:
        manifest = model if isinstance(model, ModelManifest) else load_manifest(model)
        built = create_engine(engine, manifest, engine_options)
    resolved = resolve_setup(
        KIND,
        fingerprint=built.identity.fingerprint,
        manifest_prompt_version=built.identity.prompt_version,
        threshold=manifest.threshold if manifest is not None else 0.5,
        decoding=manifest.decoding if manifest is not None else None,
        scale=options.scale,
        prompt_version=prompt_version,
        profile=profile,
    )
    return ContextPrecisionScorer(built, options, resolved.setup)


__all__ = [
    "ID",
    "KIND",
    "ChunkVerdict",
    "ContextPrecisionOptions",
    "ContextPrecisionScorer",
    "PrecisionResult",
    "average_precision",
    "create_context_precision_scorer",
    "target",
]
