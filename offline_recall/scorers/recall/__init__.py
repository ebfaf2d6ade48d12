"""Context recall: how much of the ground truth the retrieved context supports.

Ground truth -> atomic claims (the model, under a JSON grammar) -> a verdict per claim against
each chunk (a judge profile over the model's yes/no and cheap signals) -> the supported share.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...engines import Engine
from ...engines.manifests import DEFAULT_MODEL, ModelManifest
from ...judging.labelled import claim_statement
from ...judging.profile import JudgeProfile
from ..base import ScorerKind, Status
from ..build import create_scorer
from ..context import ContextOptions
from . import prompts
from .result import ClaimVerdict, RecallResult
from .scorer import ID, ClaimStore, ContextRecallScorer


class ContextRecallOptions(ContextOptions):
    """Context recall's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "context recall"


KIND = ScorerKind(
    scorer=ContextRecallScorer,
    measure="recall",
    unit="claims",
    positive="supported",
    prompts=prompts.__name__,
    labelled_statement=claim_statement,
    statuses=(Status.NO_GROUND_TRUTH, Status.NO_CLAIMS, Status.NO_CONTEXT),
    separate_judge=True,
    follows_manifest=True,
    reads=("ground truth", "context"),
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
    scorer = create_scorer(
        KIND,
        model,
        options,
        engine=engine,
        engine_options=engine_options,
        claim_cache=claim_cache,
        profile=profile,
        prompt_version=prompt_version,
        judge=judge,
        judge_engine=judge_engine,
    )
    assert isinstance(scorer, ContextRecallScorer)
    return scorer


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
