"""offline-recall: context recall for RAG evaluation on a local, pinned, open-weight model.

The pipeline in folders: `engines` run a pinned model (generic capabilities, no task rules),
`judging` turns the model's answers and cheap signals into a verdict's probability, `scorers`
hold one package per scorer (prompts, rules, result), `runs` describe a run by its spec and
score datasets resumably into result files, `data` reads inputs, `report` reads runs back.
"""

from ._version import __version__
from .data.dataset import Dataset, Row, RowError, open_dataset
from .engines import ENGINES, Engine, EngineIdentity, Failed, FakeEngine, Prompt, create_engine
from .engines.chat import ChatTemplate
from .engines.manifests import DEFAULT_MODEL, ModelManifest, load_manifest
from .engines.transformers import TransformersEngine
from .engines.vllm import VLLMEngine
from .engines.weights import model_dir
from .errors import (
    ConfigurationError,
    DatasetError,
    MissingExtraError,
    ModelError,
    OfflineRecallError,
)
from .judging.calibrate import SIGNAL_SETS, fit_profile
from .judging.judge import Assessment, Question, model_p_yes, signal_values
from .judging.labelled import LabelledPair, read_labelled
from .judging.profile import (
    MODEL_SIGNAL,
    JudgeProfile,
    ProfileOrigin,
    find_profile,
    load_profile,
    save_profile,
    threshold_profile,
    user_profile_path,
)
from .judging.signals import LEXICAL_SIGNALS, STOP_WORDS, evidence, lexical_signals, word_overlap
from .report.comparison import Comparison, compare_runs
from .runs.calibration import Calibration, calibrate
from .runs.claim_cache import ClaimCache
from .runs.evals import EvalResult, ItemResult, run_evals
from .runs.manifest import InputSpec, RunManifest
from .runs.ray_dataset import score_dataset
from .runs.ray_runner import RayOptions
from .runs.resolve import ResolvedRun, resolve_run, resolve_spec
from .runs.results import ItemRecord, read_results
from .runs.run import ResultStore, RunOutcome, run_dataset
from .runs.runner import LocalRun
from .runs.scoring import Scoring
from .runs.shard_run import ShardRun
from .runs.shard_store import ShardFolder
from .runs.spec import RunSpec
from .runs.store import RunStore
from .runs.summary import Summary
from .scorers import SCORERS
from .scorers.base import Judgment, Scorer, ScoreResult, ScorerRun, Status
from .scorers.context import ContextWarning
from .scorers.faithfulness import (
    FaithfulnessOptions,
    FaithfulnessResult,
    FaithfulnessScorer,
    create_faithfulness_scorer,
)
from .scorers.precision import (
    ChunkVerdict,
    ContextPrecisionOptions,
    ContextPrecisionScorer,
    PrecisionResult,
    create_context_precision_scorer,
)
from .scorers.recall import (
    ClaimStore,
    ClaimVerdict,
    ContextRecallOptions,
    ContextRecallScorer,
    RecallResult,
    create_context_recall_scorer,
)
from .scorers.recall.claims import dedupe_claims
from .scorers.relevance import create_context_relevance_scorer
from .text import pack, split_sentences

__all__ = [
    "DEFAULT_MODEL",
    "ENGINES",
    "LEXICAL_SIGNALS",
    "MODEL_SIGNAL",
    "SCORERS",
    "SIGNAL_SETS",
    "STOP_WORDS",
    "Assessment",
    "Calibration",
    "ChatTemplate",
    "ChunkVerdict",
    "ClaimCache",
    "ClaimStore",
    "ClaimVerdict",
    "Comparison",
    "ConfigurationError",
    "ContextPrecisionOptions",
    "ContextPrecisionScorer",
    "ContextRecallOptions",
    "ContextRecallScorer",
    "ContextWarning",
    "Dataset",
    "DatasetError",
    "Engine",
    "EngineIdentity",
    "EvalResult",
    "Failed",
    "FaithfulnessOptions",
    "FaithfulnessResult",
    "FaithfulnessScorer",
    "FakeEngine",
    "InputSpec",
    "ItemRecord",
    "ItemResult",
    "JudgeProfile",
    "Judgment",
    "LabelledPair",
    "LocalRun",
    "MissingExtraError",
    "ModelError",
    "ModelManifest",
    "OfflineRecallError",
    "PrecisionResult",
    "ProfileOrigin",
    "Prompt",
    "Question",
    "RayOptions",
    "RecallResult",
    "ResolvedRun",
    "ResultStore",
    "Row",
    "RowError",
    "RunManifest",
    "RunOutcome",
    "RunSpec",
    "RunStore",
    "ScoreResult",
    "Scorer",
    "ScorerRun",
    "Scoring",
    "ShardFolder",
    "ShardRun",
    "Status",
    "Summary",
    "TransformersEngine",
    "VLLMEngine",
    "__version__",
    "calibrate",
    "compare_runs",
    "create_context_precision_scorer",
    "create_context_recall_scorer",
    "create_context_relevance_scorer",
    "create_engine",
    "create_faithfulness_scorer",
    "dedupe_claims",
    "evidence",
    "find_profile",
    "fit_profile",
    "lexical_signals",
    "load_manifest",
    "load_profile",
    "model_dir",
    "model_p_yes",
    "open_dataset",
    "pack",
    "read_labelled",
    "read_results",
    "resolve_run",
    "resolve_spec",
    "run_dataset",
    "run_evals",
    "save_profile",
    "score_dataset",
    "signal_values",
    "split_sentences",
    "threshold_profile",
    "user_profile_path",
    "word_overlap",
]
