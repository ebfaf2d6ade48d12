"""What every scorer shares: the item it scores, the result it gives, and its setup."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import ConfigurationError
from ..frozen import Frozen as Frozen
from ..judging.profile import JudgeProfile


class Status(StrEnum):
    """How scoring an item ended."""

    OK = "ok"
    """The item was judged; the score stands."""
    NO_GROUND_TRUTH = "no_ground_truth"
    """The run had no ground truth; score 0 and no model call."""
    NO_CLAIMS = "no_claims"
    """The text claims are extracted from (the ground truth; for faithfulness, the output)
    yielded none, or there is no output; score 0."""
    NO_CONTEXT = "no_context"
    """The run had no context chunk to judge (none, or only blank ones); no model call, and
    score 0 (context relevance gives the full scale, as its reference does)."""
    ERROR = "error"
    """The item could not be scored; `error` says why and `score` is None."""


class ScorerInput(BaseModel):
    """One item to score: what went in, what came out, and the labelled answer.

    `ground_truth` may also be given as `groundTruth`, the reference scorer's name. An item may
    carry its own retrieved `context` (a row of a scored dataset): it is then scored against
    it, by `run`, `run_evals` and the command line alike, and the scorer's context options are
    not consulted (a `ContextWarning` says so when they name another source). `metadata` holds
    what no scorer reads (a mapping's other keys), as given.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    input: Any = None
    output: Any = None
    ground_truth: Any = Field(default=None, alias="groundTruth")
    context: list[str] | None = None
    metadata: dict[str, Any] | None = None


Probability = Annotated[float, Field(ge=0.0, le=1.0)]
"""A verdict's probability, from 0 to 1."""
MaybeProbability = Annotated[float | None, Field(ge=0.0, le=1.0)]
"""A probability from 0 to 1, or None where there is none (the model was not asked)."""


class Verdict(Frozen):
    """One verdict of a result, as reports and comparisons show it, whatever the scorer."""

    key: str = Field(description="Pairs this verdict with the same one in another run")
    text: str
    positive: bool = Field(description="Supported (recall) or relevant (precision)")
    probability: float
    chunk_index: int | None = Field(description="The context chunk the verdict points at")
    of_chunk: bool = Field(
        default=False, description="The verdict is about the chunk itself (its relevance)"
    )


Judgment = Verdict
"""Verdict's former name, kept for scorers written against it."""


class ScoreResult(Frozen):
    """The outcome of one scorer on one run. Each scorer's result adds its verdicts."""

    scorer: str = Field(description="The id of the scorer that gave this result")
    score: float | None = Field(description="In [0, scale]; None only when status is error")
    reason: str
    status: Status
    error: str | None = None
    transient: bool = Field(
        default=False,
        exclude_if=lambda transient: not transient,
        description="The error was the engine's for a while (a server's 5xx, a timeout), not "
        "the run's: a resumed run scores the row again. Written only when true.",
    )
    model_fingerprint: str
    prompt_version: str
    judge_profile: str | None = Field(description="Digest of the judge profile that decided")
    library_version: str

    @field_validator("transient", mode="before")
    @classmethod
    def _absent_is_false(cls, value: Any) -> Any:
        return False if value is None else value  # a Parquet column holds null where unset

    def judgments(self) -> list[Verdict]:
        """The result's verdicts in a form every report and comparison reads."""
        return []


Progress = Callable[[str, int, int], None]
"""Told how a batch is going, stage by stage: (what is being done, done so far, total)."""


@runtime_checkable
class Scorer(Protocol):
    """Scores runs: one at a time, or many in one pass over the engine. The `progress` given
    to `run_many` (else `progress`, when set) is told how the batch's stages are going."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    progress: Progress | None

    def run(self, run: ScorerInput | Mapping[str, Any]) -> ScoreResult: ...

    def run_many(
        self, runs: Sequence[ScorerInput | Mapping[str, Any]], *, progress: Progress | None = None
    ) -> Sequence[ScoreResult]: ...

    def error_result(self, message: str) -> ScoreResult: ...


class ScorerSetup(Frozen):
    """What decides a scorer's results besides the engine: the spec's part for one scorer."""

    scale: float = Field(
        default=1.0,
        ge=0.0,
        le=1e9,
        allow_inf_nan=False,
        description="0 means 1, as in the reference; at most 1e9",
    )
    prompt_version: str
    judge_profile: JudgeProfile
    max_new_tokens: int = Field(default=512, gt=0, description="Bound on one generation")
    max_items: int = Field(default=12, gt=0, description="Bound on a generated list")


MAX_SCALE = 1e9
"""The largest scale: a score rounded to two decimals stays exact in a float below it."""


def check_scale(scale: float | None) -> None:
    """Refuse a scale that is negative, not finite, or above `MAX_SCALE`, in one line."""
    if scale is not None and not (math.isfinite(scale) and 0 <= scale <= MAX_SCALE):
        raise ConfigurationError(
            f"`scale` must be a finite number from 0 to {MAX_SCALE:g} (0 means 1), got {scale}"
        )


NO_CONTEXT_REASON = "The score is 0 because the run has no context chunk to judge."


def round_half_up(value: float) -> float:
    """Round to two decimals the way the reference scorers do (JavaScript's Math.round).

    `Math.round((x + Number.EPSILON) * 100) / 100`: halves go up, so 1/8 gives 0.13, and
    float arithmetic is IEEE-754 in both languages, so the numbers match exactly.
    """
    return math.floor((value + sys.float_info.epsilon) * 100 + 0.5) / 100
