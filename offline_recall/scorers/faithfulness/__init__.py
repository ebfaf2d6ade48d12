"""Faithfulness: how much of an output the retrieved context supports.

Output -> atomic claims (context recall's extraction: the model under a JSON grammar, the same
prompt sets and rules) -> a verdict per claim against each chunk (context recall's judge and
judge profiles: the judged units are the same, a claim against a chunk) -> the supported share.
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
from ..recall import ID as RECALL
from ..recall import ClaimStore
from ..recall import prompts as recall_prompts
from .scorer import ID, FaithfulnessResult, FaithfulnessScorer


class FaithfulnessOptions(ContextOptions):
    """Faithfulness's options: `context` or `context_extractor` (or both), and `scale`."""

    metric: ClassVar[str] = "faithfulness"


KIND = ScorerKind(
    scorer=FaithfulnessScorer,
    measure="faithfulness",
    unit="claims",
    positive="supported",
    prompts=recall_prompts.__name__,
    labelled_statement=claim_statement,
    statuses=(Status.NO_CLAIMS, Status.NO_CONTEXT),
    separate_judge=True,
    follows_manifest=True,
    profile_scorer=RECALL,
    reads=("output", "context"),
)


def create_faithfulness_scorer(
    model: str | ModelManifest | Engine = DEFAULT_MODEL,
    options: FaithfulnessOptions | None = None,
    *,
    engine: str = "transformers",
    engine_options: dict[str, Any] | None = None,
    claim_cache: ClaimStore | None = None,
    profile: JudgeProfile | None = None,
    prompt_version: str | None = None,
    judge: str | ModelManifest | None = None,
    judge_engine: str | None = None,
) -> FaithfulnessScorer:
    """A faithfulness scorer on a local, pinned model: the arguments of
    `create_context_recall_scorer` (one engine and one claim cache can serve both)."""
    if options is None:
        options = FaithfulnessOptions()  # raises: a context source is required
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
    assert isinstance(scorer, FaithfulnessScorer)
    return scorer


__all__ = [
    "ID",
    "KIND",
    "FaithfulnessOptions",
    "FaithfulnessResult",
    "FaithfulnessScorer",
    "create_faithfulness_scorer",
]
