"""What a scorer is: its definition, the class attributes every scorer declares.

The registry, the command line, reports, run specs, the run store and calibration read them
off the scorer's class, without building it: its id and names, the type of its results, what
its score measures and its verdicts judge, what it reads of a run, where its prompts live, and
how a labelled row is read for calibration. How a scorer runs is pipeline.py's.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from ..errors import ConfigurationError
from ..judging.labelled import claim_statement
from . import prompts as prompting
from .inputs import ContextOptions, ScorerOptions
from .results import ScoreResult, Status

NO_PROMPTS = "none"
"""The prompt version of a scorer that asks no model, as its results and runs record it."""

READS = ("question", "ground truth", "output", "context")
"""What a scorer may read of a run (see `ScorerDefinition.reads`)."""

ROW_FIELDS = {
    "question": "input",
    "ground truth": "ground_truth",
    "output": "output",
    "context": "context",
}
"""The field of a dataset row each of `READS` is read from."""


_SPELLINGS = {"ground_truth": "ground truth", "groundTruth": "ground truth", "input": "question"}


def read_name(value: str) -> str | None:
    """The `READS` name `value` stands for (`ground_truth` and `groundTruth` are "ground
    truth", `input` is "question"); None when it names none."""
    name = _SPELLINGS.get(value, value)
    return name if name in READS else None


class ScorerDefinition:
    """A scorer's definition, declared as class attributes of its class (a `Pipeline`).

    A scorer sets `id`, `name`, `description` and `result_type`, and `prompt_package` when it
    asks the model; the others have defaults, which a scorer sets where they do not say what
    it does.
    """

    id: ClassVar[str]
    """The scorer's id, the reference's where there is one: "context-recall-scorer"."""
    name: ClassVar[str]
    """Its name in reports: "Context Recall Scorer"."""
    description: ClassVar[str]
    result_type: ClassVar[type[ScoreResult]]
    """The type of its results; runs read results back by it, and the Parquet schema is read
    off it."""
    prompt_package: ClassVar[str | None] = None
    """The package holding its prompt sets, one `<version>.toml` each: what a scorer that asks
    the model asks it. None for a scorer that asks no model (a rule over the run's own fields):
    it has no prompts, no `question()`, and a run of such scorers alone loads no model."""
    options_type: ClassVar[type[ScorerOptions]] = ContextOptions
    """Its options: the scale, where a run's context comes from (`ContextOptions`, for a
    scorer that reads it) and any of its own. Built with no argument where none are given;
    `ContextOptions` then refuse, naming the scorer's metric: a context source is required. A
    scorer that reads no context takes `ScorerOptions` (or a subclass), which need none."""
    measure: ClassVar[str] = "score"
    """What the score measures, in a word: "recall"."""
    unit: ClassVar[str] = "verdicts"
    """What its verdicts judge, plural: "claims"."""
    positive: ClassVar[str] = "positive"
    """What a positive verdict is called: "supported"."""
    statuses: ClassVar[tuple[Status, ...]] = ()
    """The statuses its results may have besides ok and error, as summaries list them."""
    reads: ClassVar[tuple[str, ...]] = ()
    """What it reads of a run, from `READS` ("question", "ground truth", "output",
    "context"; "ground_truth" is read as "ground truth"): `offline-recall scorers` lists it,
    and a dataset in which no row holds one of them is refused before any model loads."""
    levels: ClassVar[tuple[str, ...]] = ()
    """The levels of a graded verdict, best first; none for a yes/no verdict."""
    separate_judge: ClassVar[bool] = False
    """Whether it judges claims against the context: a second model (a fine-tuned verifier)
    may then judge while the first extracts, and a model's own judge prompt is asked."""
    follows_manifest: ClassVar[bool] = False
    """Whether the prompt version a model's manifest names is its default."""
    profile_scorer: ClassVar[str | None] = None
    """The scorer whose judge profiles it uses (None: its own); its judged units must be the
    same (a claim against a context chunk)."""
    output_for_ground_truth: ClassVar[bool] = False
    """Whether a run without a ground truth is judged against its output instead."""
    judged: ClassVar[str] = "verdicts judged"
    """The progress stage of its verdicts."""

    @staticmethod
    def labelled_statement(record: Mapping[str, Any]) -> Hashable:
        """What a labelled row's context is judged against, for calibration (see
        judging/labelled.py): by default the row's claim."""
        return claim_statement(record)

    @classmethod
    def reading(cls) -> tuple[str, ...]:
        """What it reads of a run (`reads`), each in its `READS` spelling."""
        return tuple(dict.fromkeys(n for r in cls.reads if (n := read_name(r)) is not None))

    @classmethod
    def reads_context(cls) -> bool:
        """Whether it reads the run's context: a dataset scored with it needs a context field."""
        return "context" in cls.reading()

    @classmethod
    def row_fields(cls) -> list[tuple[str, ...]]:
        """The dataset row fields it reads, each as the fields any one of which will do (the
        output stands in for the ground truth where `output_for_ground_truth`): a dataset in
        which no row holds one of them cannot be scored with it."""
        read = cls.reading()
        stands_in = cls.output_for_ground_truth and "ground truth" in read
        return [
            (ROW_FIELDS[name], "output")
            if name == "ground truth" and stands_in
            else (ROW_FIELDS[name],)
            for name in read
            if not (name == "output" and stands_in)
        ]

    @classmethod
    def needs_ground_truth(cls) -> bool:
        """Whether it reads the ground truth (a run without one scores 0 as no_ground_truth,
        unless its output stands in: see `output_for_ground_truth`)."""
        return Status.NO_GROUND_TRUTH in cls.statuses

    @classmethod
    def verdict_kind(cls) -> str:
        """Its verdict kind, in words: "supported or not, per claim"."""
        per = cls.unit.removesuffix("s")
        if cls.levels:
            return f"{', '.join(cls.levels)}, per {per}"
        return f"{cls.positive} or not, per {per}"

    @classmethod
    def profile_id(cls) -> str:
        """The scorer id its judge profiles are found and fitted under."""
        return cls.profile_scorer or cls.id

    @classmethod
    def asks_model(cls) -> bool:
        """Whether it asks the model anything: whether it names a prompts package."""
        return cls.prompt_package is not None

    @classmethod
    def prompt_versions(cls) -> list[str]:
        """Its prompt versions; `NO_PROMPTS` alone for a scorer that asks no model."""
        if cls.prompt_package is None:
            return [NO_PROMPTS]
        return prompting.versions(cls.prompt_package)

    @classmethod
    def prompt_file(cls, version: str) -> bytes:
        """The data file of a prompt version, as it is recorded in a run's manifest (empty for
        a scorer that asks no model)."""
        if cls.prompt_package is None:
            if version != NO_PROMPTS:
                raise ConfigurationError(
                    f"{cls.id} asks no model and has no prompt version {version!r}"
                )
            return b""
        return prompting.prompt_file(cls.prompt_package, version)

    @classmethod
    def default_prompt_version(cls, named: str | None) -> str:
        """The prompt version for a model whose manifest names `named` (None: none named)."""
        if cls.follows_manifest and named:
            return named
        return cls.prompt_versions()[-1]
