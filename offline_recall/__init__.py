"""offline-recall: context recall for RAG evaluation on a local, pinned, open-weight model.

The pipeline in folders: `data` reads inputs (each opened once before scoring: its hash,
count and field names), `engines` run a pinned model (generic capabilities, no task rules),
`judging` turns the model's answers and cheap signals into a verdict's probability, `scorer`
is the kit every scorer is made of (the pipeline, options, results, prompts, the registry),
`metrics` hold the built-in scorers, one package each (prompts, rules, result), `runs` describe
a run and score datasets resumably into a store and result files, `report` reads runs back,
`service` scores over HTTP and `cli` is the command.

The public API is what `__all__` lists; everything else may move. The built-in scorers' names
(each one's `create_*` function, its options and result types) are read from their registry
entries (`scorer/builtins.py`, which imports nothing of the package). A public name's module is
imported the first time the name is used, so `import offline_recall` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._version import __version__
from .imported import lazy_names
from .scorer.builtins import public_names

# For type checkers, each public name imported; the built-in scorers' are re-exported with `as`,
# since `__all__` adds them from the registry (`public_names`).
if TYPE_CHECKING:
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
    from .metrics.faithfulness import FaithfulnessOptions as FaithfulnessOptions
    from .metrics.faithfulness import FaithfulnessResult as FaithfulnessResult
    from .metrics.faithfulness import create_faithfulness_scorer as create_faithfulness_scorer
    from .metrics.precision import ChunkVerdict as ChunkVerdict
    from .metrics.precision import ContextPrecisionOptions as ContextPrecisionOptions
    from .metrics.precision import PrecisionResult as PrecisionResult
    from .metrics.precision import (
        create_context_precision_scorer as create_context_precision_scorer,
    )
    from .metrics.recall import ClaimVerdict as ClaimVerdict
    from .metrics.recall import ContextRecallOptions as ContextRecallOptions
    from .metrics.recall import RecallResult as RecallResult
    from .metrics.recall import create_context_recall_scorer as create_context_recall_scorer
    from .metrics.relevance import ChunkRelevance as ChunkRelevance
    from .metrics.relevance import ContextRelevanceOptions as ContextRelevanceOptions
    from .metrics.relevance import Penalties as Penalties
    from .metrics.relevance import RelevanceResult as RelevanceResult
    from .metrics.relevance import (
        create_context_relevance_scorer as create_context_relevance_scorer,
    )
    from .report.comparison import Comparison, compare_runs
    from .runs.claim_cache import ClaimCache
    from .runs.dataset_scores import DatasetScores
    from .runs.evals import EvalResult, ItemResult, run_evals
    from .runs.ray_dataset import score_dataset
    from .runs.ray_workers import RayOptions
    from .runs.resolve import resolve_spec
    from .runs.results import ItemRecord, read_results
    from .runs.score import score
    from .scorer.results import Status

__all__ = [
    "DEFAULT_MODEL",
    "ClaimCache",
    "Comparison",
    "ConfigurationError",
    "DatasetError",
    "DatasetScores",
    "Engine",
    "EvalResult",
    "FakeEngine",
    "ItemRecord",
    "ItemResult",
    "MissingExtraError",
    "ModelError",
    "OfflineRecallError",
    "RayOptions",
    "Status",
    "__version__",
    "compare_runs",
    "create_engine",
    "load_manifest",
    "model_dir",
    "read_results",
    "resolve_spec",
    "run_evals",
    "score",
    "score_dataset",
]
__all__ += public_names()

# Each public name and the module it is imported from: the built-in scorers' (each one's
# `create_*` function and what its registry entry exports), then the others.
_MODULES: dict[str, str] = {
    **public_names(),
    "Status": "offline_recall.scorer.results",
    "ClaimCache": "offline_recall.runs.claim_cache",
    # runs: a dataset scored, items run and scored, a Ray Dataset scored, results read back
    "score": "offline_recall.runs.score",
    "DatasetScores": "offline_recall.runs.dataset_scores",
    "run_evals": "offline_recall.runs.evals",
    "EvalResult": "offline_recall.runs.evals",
    "ItemResult": "offline_recall.runs.evals",
    "resolve_spec": "offline_recall.runs.resolve",
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

__getattr__, __dir__ = lazy_names(globals(), _MODULES)
