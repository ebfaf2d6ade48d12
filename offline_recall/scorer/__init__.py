"""The scorer kit: everything a scorer is made of, for the built-in metrics and plugins alike.

A scorer is one class: a subclass of `Pipeline` (or of a family base, `ClaimScorer` for a
scorer whose units are claims judged against the context, `ChunkScorer` for one whose units
are the retrieved chunks) whose class attributes are its definition (id, names, options and
result types, what it reads of a run) and whose steps (`prepare`, `generate`, `units`,
`aggregate`) say how it scores. The framework reads the rest off the class: the command line,
the run store, reports, verify, Ray and calibration. Built-in scorers live in
`offline_recall.metrics` and are registered by id in `builtins.py`; installed packages add
theirs through the entry-point group `offline_recall.scorers`.

The kit's modules: `results` (the item a scorer reads, the result it gives, statuses),
`inputs` (options, a run's fields, Mastra's agent shape), `declaration` (the class attributes
a scorer declares), `pipeline` (how every scorer runs), the two families (`claims/`: claims of
a text extracted and judged against the context, with their prompt sets and rules;
`chunks`: each retrieved chunk judged), `prompts` (versioned prompt files),
`construction` (building a scorer on a model), `judge_setup` (its prompt version and judge
profile), `builtins`, `registry` and `plugins` (scorers by id), and the run-time guards (`guard`,
`stages`, `memo`). A name is imported the first time it is used, so importing the kit loads
nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..imported import lazy_names

if TYPE_CHECKING:
    from ..engines.base import Prompt
    from ..judging.judge import Pair, PairVerdict, Question
    from ..text import split_sentences
    from .chunks import ChunkItem, ChunkScorer, ChunkUnit
    from .claims import ClaimItem, ClaimScorer, ClaimUnit, ClaimVerdict
    from .construction import create_scorer
    from .inputs import ContextOptions, ScorerOptions, answer_text, context_texts, question_text
    from .pipeline import Pipeline
    from .prompts import VersionedPrompts, YesNoPrompt
    from .registry import SCORERS, scorer_kind
    from .results import Scorer, ScoreResult, ScorerInput, Status, Verdict, round_half_up

# Each name of the kit and the module it is imported from.
_MODULES: dict[str, str] = {
    # a scorer and its families
    "Pipeline": "offline_recall.scorer.pipeline",
    "ClaimScorer": "offline_recall.scorer.claims",
    "ClaimItem": "offline_recall.scorer.claims",
    "ClaimUnit": "offline_recall.scorer.claims",
    "ClaimVerdict": "offline_recall.scorer.claims",
    "ChunkScorer": "offline_recall.scorer.chunks",
    "ChunkItem": "offline_recall.scorer.chunks",
    "ChunkUnit": "offline_recall.scorer.chunks",
    # options and inputs
    "ScorerOptions": "offline_recall.scorer.inputs",
    "ContextOptions": "offline_recall.scorer.inputs",
    "ScorerInput": "offline_recall.scorer.results",
    "question_text": "offline_recall.scorer.inputs",
    "answer_text": "offline_recall.scorer.inputs",
    "context_texts": "offline_recall.scorer.inputs",
    "split_sentences": "offline_recall.text",
    # results
    "Scorer": "offline_recall.scorer.results",
    "ScoreResult": "offline_recall.scorer.results",
    "Verdict": "offline_recall.scorer.results",
    "Judgment": "offline_recall.scorer.results",  # Verdict's former name
    "Status": "offline_recall.scorer.results",
    "round_half_up": "offline_recall.scorer.results",
    # prompts and judgments
    "Prompt": "offline_recall.engines.base",
    "VersionedPrompts": "offline_recall.scorer.prompts",
    "YesNoPrompt": "offline_recall.scorer.prompts",
    "Question": "offline_recall.judging.judge",
    "PairVerdict": "offline_recall.judging.judge",
    "Assessment": "offline_recall.judging.judge",  # PairVerdict's former name
    "Pair": "offline_recall.judging.judge",
    # building and finding scorers
    "create_scorer": "offline_recall.scorer.construction",
    "SCORERS": "offline_recall.scorer.registry",
    "scorer_kind": "offline_recall.scorer.registry",
}


__getattr__, __dir__ = lazy_names(globals(), _MODULES)

__all__ = [
    "SCORERS",
    "ChunkItem",
    "ChunkScorer",
    "ChunkUnit",
    "ClaimItem",
    "ClaimScorer",
    "ClaimUnit",
    "ClaimVerdict",
    "ContextOptions",
    "Pair",
    "PairVerdict",
    "Pipeline",
    "Prompt",
    "Question",
    "ScoreResult",
    "Scorer",
    "ScorerInput",
    "ScorerOptions",
    "Status",
    "Verdict",
    "VersionedPrompts",
    "YesNoPrompt",
    "answer_text",
    "context_texts",
    "create_scorer",
    "question_text",
    "round_half_up",
    "scorer_kind",
    "split_sentences",
]
