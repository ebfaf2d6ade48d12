"""offline-recall: context recall for RAG evaluation on a local, pinned, open-weight model."""

from ._version import __version__
from .backends import Backend, BackendInfo, Failed, FakeBackend, create_backend
from .errors import ConfigurationError, MissingExtraError, ModelError, OfflineRecallError
from .evals import EvalResult, ItemResult, Summary, run_evals
from .models import DEFAULT_MODEL, ModelManifest, load_manifest
from .scorer import ContextRecallScorer, create_context_recall_scorer
from .types import ContextRecallOptions, RecallResult, ScorerRun, Status, Verdict

__all__ = [
    "DEFAULT_MODEL",
    "Backend",
    "BackendInfo",
    "ConfigurationError",
    "ContextRecallOptions",
    "ContextRecallScorer",
    "EvalResult",
    "Failed",
    "FakeBackend",
    "ItemResult",
    "MissingExtraError",
    "ModelError",
    "ModelManifest",
    "OfflineRecallError",
    "RecallResult",
    "ScorerRun",
    "Status",
    "Summary",
    "Verdict",
    "__version__",
    "create_backend",
    "create_context_recall_scorer",
    "load_manifest",
    "run_evals",
]
