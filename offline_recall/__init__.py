"""offline-recall: context recall for RAG evaluation on a local, pinned, open-weight model.

The pipeline in folders: `data` reads inputs (each opened once before scoring: its hash,
count and field names), `engines` run a pinned model (generic capabilities, no task rules),
`judging` turns the model's answers and cheap signals into a verdict's probability, `scorer`
is the kit every scorer is made of (the pipeline, options, results, prompts, the registry),
`metrics` hold the built-in scorers, one package each (prompts, rules, result), `runs` describe
a run and score datasets resumably into a store and result files, `report` reads runs back,
`service` scores over HTTP and `cli` is the command.

The public API is what `__all__` lists; everything else may move. A public name's module is
imported the first time the name is used, so `import offline_recall` loads nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .data.dataset import open_dataset
    from .engines import create_engine
    from .engines.base import Engine
    from .engines.fake import FakeEngine
    from .engines.manifests import DEFAULT_MODEL, load_manifest
    from .engines.weights import model_dir
    from .errors import (
        ConfigurationError,
        DatasetError,
        MissingExtraError,
        ModelError,
        OfflineRecallError,
    )
    from .metrics.faithfulness import (
        FaithfulnessOptions,
        FaithfulnessResult,
        create_faithfulness_scorer,
    )
    from .metrics.precision import (
        ChunkVerdict,
        ContextPrecisionOptions,
        PrecisionResult,
        create_context_precision_scorer,
    )
    from .metrics.recall import (
        ClaimVerdict,
        ContextRecallOptions,
        RecallResult,
        create_context_recall_scorer,
    )
    from .metrics.relevance import (
        ChunkRelevance,
        ContextRelevanceOptions,
        Penalties,
        RelevanceResult,
        create_context_relevance_scorer,
    )
    from .report.comparison import Comparison, compare_runs
    from .runs.claim_cache import ClaimCache
    from .runs.evals import EvalResult, ItemResult, run_evals
    from .runs.execute import run_dataset
    from .runs.local import LocalRunner
    from .runs.manifest import InputSpec
    from .runs.ray_dataset import score_dataset
    from .runs.ray_workers import RayOptions
    from .runs.resolve import resolve_spec
    from .runs.results import ItemRecord, read_results
    from .runs.store import RunStore
    from .scorer.results import Status

# Each public name and the module it is imported from. A scorer's names come from its package,
# which lists them in its own `__all__`.
_MODULES: dict[str, str] = {
    # scorers
    "create_context_recall_scorer": "offline_recall.metrics.recall",
    "ContextRecallOptions": "offline_recall.metrics.recall",
    "RecallResult": "offline_recall.metrics.recall",
    "ClaimVerdict": "offline_recall.metrics.recall",
    "create_context_precision_scorer": "offline_recall.metrics.precision",
    "ContextPrecisionOptions": "offline_recall.metrics.precision",
    "PrecisionResult": "offline_recall.metrics.precision",
    "ChunkVerdict": "offline_recall.metrics.precision",
    "create_faithfulness_scorer": "offline_recall.metrics.faithfulness",
    "FaithfulnessOptions": "offline_recall.metrics.faithfulness",
    "FaithfulnessResult": "offline_recall.metrics.faithfulness",
    "create_context_relevance_scorer": "offline_recall.metrics.relevance",
    "ContextRelevanceOptions": "offline_recall.metrics.relevance",
    "Penalties": "offline_recall.metrics.relevance",
    "RelevanceResult": "offline_recall.metrics.relevance",
    "ChunkRelevance": "offline_recall.metrics.relevance",
    "Status": "offline_recall.scorer.results",
    "ClaimCache": "offline_recall.runs.claim_cache",
    # runs: their spec, runners and stores
    "run_evals": "offline_recall.runs.evals",
    "EvalResult": "offline_recall.runs.evals",
    "ItemResult": "offline_recall.runs.evals",
    "resolve_spec": "offline_recall.runs.resolve",
    "open_dataset": "offline_recall.data.dataset",
    "InputSpec": "offline_recall.runs.manifest",
    "run_dataset": "offline_recall.runs.execute",
    "LocalRunner": "offline_recall.runs.local",
    "RunStore": "offline_recall.runs.store",
    "score_dataset": "offline_recall.runs.ray_dataset",
    "RayOptions": "offline_recall.runs.ray_workers",
    "read_results": "offline_recall.runs.results",
    "ItemRecord": "offline_recall.runs.results",
    "compare_runs": "offline_recall.report.comparison",
    "Comparison": "offline_recall.report.comparison",
    # engines
    "create_engine": "offline_recall.engines",
    "Engine": "offline_recall.engines.base",
    "FakeEngine": "offline_recall.engines.fake",
    "DEFAULT_MODEL": "offline_recall.engines.manifests",
    "load_manifest": "offline_recall.engines.manifests",
    "model_dir": "offline_recall.engines.weights",
    # errors
    "OfflineRecallError": "offline_recall.errors",
    "ConfigurationError": "offline_recall.errors",
    "DatasetError": "offline_recall.errors",
    "ModelError": "offline_recall.errors",
    "MissingExtraError": "offline_recall.errors",
}


def __getattr__(name: str) -> Any:
    """A public name, its module imported on first use and the name kept for the next."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, as `dir(offline_recall)` lists them."""
    return sorted(__all__)


__all__ = [
    "DEFAULT_MODEL",
    "ChunkRelevance",
    "ChunkVerdict",
    "ClaimCache",
    "ClaimVerdict",
    "Comparison",
    "ConfigurationError",
    "ContextPrecisionOptions",
    "ContextRecallOptions",
    "ContextRelevanceOptions",
    "DatasetError",
    "Engine",
    "EvalResult",
    "FaithfulnessOptions",
    "FaithfulnessResult",
    "FakeEngine",
    "InputSpec",
    "ItemRecord",
    "ItemResult",
    "LocalRunner",
    "MissingExtraError",
    "ModelError",
    "OfflineRecallError",
    "Penalties",
    "PrecisionResult",
    "RayOptions",
    "RecallResult",
    "RelevanceResult",
    "RunStore",
    "Status",
    "__version__",
    "compare_runs",
    "create_context_precision_scorer",
    "create_context_recall_scorer",
    "create_context_relevance_scorer",
    "create_engine",
    "create_faithfulness_scorer",
    "load_manifest",
    "model_dir",
    "open_dataset",
    "read_results",
    "resolve_spec",
    "run_dataset",
    "run_evals",
    "score_dataset",
]
