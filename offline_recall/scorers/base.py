"""What every scorer shares: the run it scores, the result it gives, and its registry entry."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import ConfigurationError
from ..frozen import Frozen as Frozen
from ..judging.profile import JudgeProfile
from . import prompting


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


class ScorerRun(BaseModel):
    """One thing to score: what went in, what came out, and the labelled answer.

    `ground_truth` may also be given as `groundTruth`, the reference scorer's name. A run may
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

    def judgments(self) -> list[Judgment]:
        """The result's verdicts in a form every report and comparison reads."""
        return []


Progress = Callable[[str, int, int], None]
"""Told how a batch is going, stage by stage: (what is being done, done so far, total)."""


@runtime_checkable
class Scorer(Protocol):
    """Scores runs: one at a time, or many in one pass over the engine. The `progress` given
    to `run_many` (else `progress`, when set) is told how the batch's stages are going."""

    id: str
    name: str
    description: str
    progress: Progress | None

    def run(self, run: ScorerRun | Mapping[str, Any]) -> ScoreResult: ...

    def run_many(
        self, runs: Sequence[ScorerRun | Mapping[str, Any]], *, progress: Progress | None = None
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


READS = ("ground truth", "output", "context", "question")
"""What a scorer may read of a run (see `ScorerKind.reads`)."""


@dataclass(frozen=True)
class ScorerKind:
    """A registered scorer: its class, how its results read, and where its prompts live.

    Its id, names, description and result type are its class's. Everything else a scorer
    does (batching, memo, failures, progress, stamping) is the pipeline's (pipeline.py);
    building it is `build.build_scorer`'s.
    """

    scorer: Callable[..., Scorer]
    """The scorer class: `(engine, options or None when runs carry their context, setup, *,
    claim_cache, judge, judge_prompt)`; see `build.build_scorer`."""
    measure: str
    """What the score measures, in a word: "recall"."""
    unit: str
    """What its verdicts judge, plural: "claims"."""
    positive: str
    """What a positive verdict is called: "supported"."""
    prompts: str
    """The package holding its prompt sets, one `<version>.toml` each."""
    labelled_statement: Callable[[Mapping[str, Any]], Hashable]
    """What a labelled row's context is judged against, for calibration (see labelled.py)."""
    statuses: tuple[Status, ...]
    """The statuses its results may have besides ok and error, as summaries list them."""
    separate_judge: bool = False
    """Whether it judges claims against the context: a second model (a fine-tuned verifier)
    may then judge while the first extracts, and a model's own judge prompt is asked."""
    follows_manifest: bool = False
    """Whether the prompt version a model's manifest names is its default."""
    profile_scorer: str | None = None
    """The scorer whose judge profiles it uses (None: its own); its judged units must be the
    same (a claim against a context chunk)."""
    output_for_ground_truth: bool = False
    """Whether a run without a ground truth is judged against its output instead."""
    reads: tuple[str, ...] = ()
    """What it reads of a run, from `READS`, as `offline-recall scorers` lists it."""
    levels: tuple[str, ...] = ()
    """The levels of a graded verdict, best first; none for a yes/no verdict."""

    @property
    def id(self) -> str:
        return str(self.scorer.id)  # type: ignore[attr-defined]

    @property
    def name(self) -> str:
        return str(self.scorer.name)  # type: ignore[attr-defined]

    @property
    def description(self) -> str:
        return str(self.scorer.description)  # type: ignore[attr-defined]

    @property
    def result_type(self) -> type[ScoreResult]:
        found: type[ScoreResult] = self.scorer.result_type  # type: ignore[attr-defined]
        return found

    @property
    def build(self) -> Callable[..., Scorer]:
        return self.scorer

    @property
    def needs_ground_truth(self) -> bool:
        """Whether it reads the ground truth (a run without one scores 0 as no_ground_truth,
        unless its output stands in: see `output_for_ground_truth`)."""
        return Status.NO_GROUND_TRUTH in self.statuses

    @property
    def verdict(self) -> str:
        """Its verdict kind, in words: "supported or not, per claim"."""
        per = self.unit.removesuffix("s")
        if self.levels:
            return f"{', '.join(self.levels)}, per {per}"
        return f"{self.positive} or not, per {per}"

    @property
    def profile_id(self) -> str:
        """The scorer id its judge profiles are found and fitted under."""
        return self.profile_scorer or self.id

    def prompt_versions(self) -> list[str]:
        return prompting.versions(self.prompts)

    def prompt_file(self, version: str) -> bytes:
        """The data file of a prompt version, as it is recorded in a run's manifest."""
        return prompting.prompt_file(self.prompts, version)

    def default_prompt_version(self, named: str | None) -> str:
        """The prompt version for a model whose manifest names `version` (None: none named)."""
        if self.follows_manifest and named:
            return named
        return self.prompt_versions()[-1]


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
