"""offline-recall: context recall for RAG evaluation on a local, pinned, open-weight model."""

from ._version import __version__
from .backends import Backend, BackendInfo, Failed, FakeBackend, create_backend
from .claim_cache import ClaimCache
from .compare import Comparison, compare_runs
from .errors import (
    ConfigurationError,
    DatasetError,
    MissingExtraError,
    ModelError,
    OfflineRecallError,
)
from .evals import EvalResult, ItemResult, Summary, run_evals
from .formats import Dataset, open_dataset
from .models import DEFAULT_MODEL, ModelManifest, load_manifest
from .results import ResultRecord, read_results
from .run_manifest import RunManifest
from .scorer import ContextRecallScorer, create_context_recall_scorer
from .types import ContextRecallOptions, RecallResult, ScorerRun, Status, Verdict

__all__ = [
    "DEFAULT_MODEL",
    "Backend",
    "BackendInfo",
    "ClaimCache",
    "Comparison",
    "ConfigurationError",
    "ContextRecallOptions",
    "ContextRecallScorer",
    "Dataset",
    "DatasetError",
    "EvalResult",
    "Failed",
    "FakeBackend",
    "ItemResult",
    "MissingExtraError",
    "ModelError",
    "ModelManifest",
    "OfflineRecallError",
    "RecallResult",
    "ResultRecord",
    "RunManifest",
    "ScorerRun",
    "Status",
    "Summary",
    "Verdict",
    "__version__",
    "compare_runs",
    "create_backend",
    "create_context_recall_scorer",
    "load_manifest",
    "open_dataset",
    "read_results",
    "run_evals",
]
