"""Context precision: whether the retrieved chunks are relevant to the expected answer, and
ranked first.

Each chunk -> a relevance verdict against the question and expected answer (a judge profile
over the model's yes/no and cheap signals) -> mean average precision in retrieved order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...engines import Engine
from ...engines.manifests import DEFAULT_MODEL, ModelManifest
from ...judging.profile import JudgeProfile
from ..base import ScorerKind, Status
from ..build import create_scorer
from ..context import ContextOptions
from . import prompts
from .prompts import Target
from .result import ChunkVerdict, PrecisionResult
from .score import average_precision
from .scorer import ID, ContextPrecisionScorer


class ContextPrecisionOptions(ContextOptions):
    """Context precision's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context precision"


def _labelled_statement(record: Mapping[str, Any]) -> Target:
    """A labelled precision row's statement: its question (optional) and answer."""
    answer, question = record.get("answer"), record.get("question")
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("answer must be a non-empty string")
    if question is not None and not isinstance(question, str):
        raise ValueError("question must be a string")
    return Target(question, answer)


KIND = ScorerKind(
    scorer=ContextPrecisionScorer,
    measure="precision",
    unit="chunks",
    positive="relevant",
    prompts=prompts.__name__,
    labelled_statement=_labelled_statement,
    statuses=(Status.NO_GROUND_TRUTH, Status.NO_CONTEXT),
    output_for_ground_truth=True,
    reads=("question", "ground truth", "output", "context"),
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
    `context` or `context_extractor`, or with an empty `context`). Precision asks the model
    its own relevance question: a model's own judge prompt (for claims) is not used.
    """
    if options is None:
        options = ContextPrecisionOptions()  # raises: a context source is required
    scorer = create_scorer(
        KIND,
        model,
        options,
        engine=engine,
        engine_options=engine_options,
        profile=profile,
        prompt_version=prompt_version,
    )
    assert isinstance(scorer, ContextPrecisionScorer)
    return scorer


__all__ = [
    "ID",
    "KIND",
    "ChunkVerdict",
    "ContextPrecisionOptions",
    "ContextPrecisionScorer",
    "PrecisionResult",
    "Target",
    "average_precision",
    "create_context_precision_scorer",
]
