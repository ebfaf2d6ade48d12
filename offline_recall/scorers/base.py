"""What every scorer shares: the run it scores, the result it gives, and its registry entry."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..frozen import Frozen as Frozen
from ..judging.profile import JudgeProfile

if TYPE_CHECKING:
    pass


class Status(StrEnum):
    """How scoring an item ended."""

    OK = "ok"
    """The item was judged; the score stands."""
    NO_GROUND_TRUTH = "no_ground_truth"
    """The run had no ground truth; score 0 and no model call."""
    NO_CLAIMS = "no_claims"
    """The ground truth yielded no claims; score 0."""
    NO_CONTEXT = "no_context"
    """The run had no context chunk to judge (none, or only blank ones); score 0 and no model
    call."""
    ERROR = "error"
    """The item could not be scored; `error` says why and `score` is None."""


class ScorerRun(BaseModel):
    """One thing to score: what went in, what came out, and the labelled answer.

    `ground_truth` may also be given as `groundTruth`, the reference scorer's name. A run may
    carry its own retrieved `context` (a row of a scored dataset): it is then scored against
    it, by `run`, `run_evals` and the command line alike, and the scorer's context options are
    not consulted (a `ContextWarning` says so when they name another source).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    input: Any = None
    output: Any = None
    ground_truth: Any = Field(default=None, alias="groundTruth")
    context: list[str] | None = None


class Judgment(Frozen):
    """One verdict of a result, as reports and comparisons show it, whatever the scorer."""

    key: str = Field(description="Pairs this verdict with the same one in another run")
    text: str
    positive: bool = Field(description="Supported (recall) or relevant (precision)")
    probability: float
    chunk_index: int | None = Field(description="The context chunk the verdict points at")
    of_chunk: bool = Field(
        default=False, description="The verdict is about the chunk itself (its relevance)"
    )


class ScoreResult(Frozen):
    """The outcome of one scorer on one run. Each scorer's result adds its verdicts."""

    scorer: str = Field(description="The id of the scorer that gave this result")
    score: float | None = Field(description="In [0, scale]; None only when status is error")
    reason: str
    status: Status
    error: str | None = None
    model_fingerprint: str
    prompt_version: str
    judge_profile: str | None = Field(description="Digest of the judge profile that decided")
    library_version: str

    def judgments(self) -> list[Judgment]:
        """The result's verdicts in a form every report and comparison reads."""
        return []


Progress = Callable[[str, int, int], None]
"""Told how a batch is going, stage by stage: (what is being done, done so far, total)."""


@runtime_checkable
class Scorer(Protocol):
    """Scores runs: one at a time, or many in one pass over the engine. `progress`, when set,
    is told how each batch's stages are going."""

    id: str
    name: str
    description: str
    progress: Progress | None

    def run(self, run: ScorerRun | Mapping[str, Any]) -> ScoreResult: ...

    def run_many(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> Sequence[ScoreResult]: ...

    def error_result(self, message: str) -> ScoreResult: ...


class ScorerSetup(Frozen):
    """What decides a scorer's results besides the engine: the spec's part for one scorer."""

    scale: float = Field(default=1.0, ge=0.0, description="0 means 1, as in the reference")
    prompt_version: str
    judge_profile: JudgeProfile
    max_new_tokens: int = Field(default=512, gt=0, description="Bound on one generation")
    max_items: int = Field(default=12, gt=0, description="Bound on a generated list")


@dataclass(frozen=True)
class ScorerKind:
    """A registered scorer: its names, result type, prompts and how to build it."""

    id: str
    name: str
    description: str
    result_type: type[ScoreResult]
    measure: str
    """What the score measures, in a word: "recall"."""
    unit: str
    """What its verdicts judge, plural: "claims"."""
    positive: str
    """What a positive verdict is called: "supported"."""
    prompt_versions: Callable[[], list[str]]
    default_prompt_version: Callable[[str | None], str]
    """The prompt version for a model whose manifest names `version` (None: none named)."""
    build: Callable[..., Scorer]
    """(engine, options or None when runs carry their context, setup, claim cache, and by
    keyword `judge`: an engine that judges instead of `engine`, and `judge_prompt`: the text
    of the judging model's own prompt file, both None by default)."""
    prompt_file: Callable[[str], bytes]
    """The data file of a prompt version, as it is recorded in a run's manifest."""
    arrow_fields: Callable[[], list[tuple[str, Any]]]
    """The Arrow types of the fields its result adds (for Parquet result files)."""
    labelled_statement: Callable[[Mapping[str, Any]], str]
    """What a labelled row's context is judged against, for calibration (see labelled.py)."""
    separate_judge: bool = False
    """Whether a second model (a fine-tuned verifier) may judge while the first extracts."""


NO_CONTEXT_REASON = "The score is 0 because the run has no context chunk to judge."


def round_half_up(value: float) -> float:
    """Round to two decimals the way the reference scorers do (JavaScript's Math.round).

    `Math.round((x + Number.EPSILON) * 100) / 100`: halves go up, so 1/8 gives 0.13, and
    float arithmetic is IEEE-754 in both languages, so the numbers match exactly.
    """
    return math.floor((value + sys.float_info.epsilon) * 100 + 0.5) / 100
