"""The pipeline every scorer runs on.

It owns what scorers share: a batch prepared run by run (a bad run is its own result), an
optional generation stage, the judged units de-duplicated across the batch and sent to the
judge in one pass, the verdicts remembered (failures forgotten, to be tried again), a batch
that breaks retried run by run (see `run_many`), progress, and every result stamped with the
model, prompt version, judge profile and library version.

A scorer is one subclass of `Pipeline`: its class attributes are its definition (see
declaration.py), its methods its own parts: `question` (how the judge asks about one unit),
`prepare` (a run -> an item, or an early result), `generate` (optional: e.g. claims for each
item), `units` (an item's judged units, typed, each naming the (evidence, statement) pair the
judge decides) and `aggregate` (an item's verdicts -> its score and reason). Every scorer is
built with the same arguments (see `Pipeline.__init__`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeAlias, TypedDict, TypeVar, Unpack

from .._version import __version__
from ..engines import Engine, Failed
from ..errors import ConfigurationError, OfflineRecallError
from ..judging.judge import Judge, Pair, PairVerdict, Question
from . import prompts as prompting
from .declaration import READS, ScorerDefinition, read_name
from .guard import Guard, StepFailed, step_seconds
from .inputs import ScorerOptions, as_input
from .memo import Memo
from .results import Progress, ScoreResult, ScorerInput, ScorerSetup, Status, round_half_up
from .stages import stage

VERDICTS_REMEMBERED = 8192

NO_MODEL = "none"
"""The model fingerprint of a result whose scorer asks no model."""


class ClaimCacheLike(Protocol):
    """Claims kept across runs, keyed by model fingerprint, prompt version and text."""

    def get(
        self, fingerprint: str, prompt_version: str, texts: Sequence[str]
    ) -> dict[str, list[str]]: ...

    def put(self, fingerprint: str, prompt_version: str, claims: dict[str, list[str]]) -> None: ...


class JudgedUnit(Hashable, Protocol):
    """One thing a scorer asks the judge about, with named fields (a claim against a chunk,
    a chunk against a question and its answer); `pair` is what the judge reads."""

    @property
    def pair(self) -> Pair[Any]: ...


T = TypeVar("T")
U = TypeVar("U", bound=JudgedUnit)
R = TypeVar("R", bound=ScoreResult)
V = TypeVar("V")
PS = TypeVar("PS", bound=prompting.VersionedPrompts)


class Built(TypedDict, total=False):
    """What a scorer is built with besides its engine, options and setup, by keyword."""

    claim_cache: ClaimCacheLike | None
    """Claims kept across runs, for a scorer that extracts them."""
    judge: Engine | None
    """A second model (a fine-tuned verifier) that judges the units; else the engine judges."""
    judge_prompt: str | None
    """The judging model's own yes/no question about a claim (its manifest's judge prompt
    file), for a scorer that judges claims against the context."""


class Pipeline(ScorerDefinition, Generic[T, U, R]):
    """A scorer: its definition (`ScorerDefinition`'s class attributes) and the batch skeleton
    every scorer runs on (`run`, `run_many`, `error_result` and the verdict memo).

    Subclasses set the definition's attributes, and define `question`, `prepare`, `units` and
    `aggregate` (and `generate` when they produce something per item before judging).
    """

    def __init__(
        self,
        engine: Engine,
        options: ScorerOptions | None,
        setup: ScorerSetup,
        **built: Unpack[Built],
    ) -> None:
        """The scorer on `engine` (and `judge`, a verifier, when given), reading each run's
        context through `options` (None: the runs carry their own), deciding as `setup` says.

        Every scorer is built with these arguments (see `Built` and `build.build_scorer`); one
        that does not judge claims against the context (`separate_judge`) asks its own
        question, so it refuses a judge prompt.
        """
        self.judge_prompt = built.get("judge_prompt")
        """The judging model's own question about a claim, for a scorer that judges claims."""
        if self.judge_prompt is not None and not self.separate_judge:
            raise ConfigurationError(f"{self.name} asks its own question; it takes no judge prompt")
        self.claim_cache = built.get("claim_cache")
        """Claims kept across runs, for a scorer that extracts them."""
        self.engine = engine
        self.judge_engine = built.get("judge") or engine
        """The engine that judges the units: a separate verifier, else the scorer's engine."""
        self.options = options
        self.setup = setup
        self.progress: Progress | None = None
        """Told how each batch's stages go when `run_many` is given no progress of its own."""
        self._batch_progress: Progress | None = None
        if self.asks_model():  # a scorer that asks no model has no judge, and no question
            self.judge = self._made_judge()
        # Identical pairs are sent to the judge once.
        self._verdicts: Memo[Pair[Any], PairVerdict | Failed] = Memo(VERDICTS_REMEMBERED)

    judge: Judge[Any]
    """The judge of the units (a scorer that asks no model has none)."""

    # What a scorer declares ---------------------------------------------------------------

    def question(self) -> Question[Any]:
        """How the judge asks the model about one unit: the prompt and the two answer words."""
        raise NotImplementedError

    def make_judge(self) -> Judge[Any]:
        """The judge of the units (optional): by default `question` asked on the judging
        engine, decided under the setup's judge profile."""
        return Judge(self.judge_engine, self.question(), self.setup.judge_profile)

    def prepare(self, run: ScorerInput) -> T | R:
        """The run made ready for the model, or its result when nothing needs judging."""
        raise NotImplementedError

    def generate(self, items: Mapping[int, T]) -> Mapping[int, T | Failed]:
        """What the scorer generates for each item before judging (nothing by default)."""
        return items

    def units(self, item: T) -> Sequence[U]:
        """The item's judged units, in the order they are sent to the judge."""
        raise NotImplementedError

    def aggregate(self, item: T, assessed: Mapping[Pair[Any], PairVerdict]) -> R:
        """The item's result from its units' verdicts (every one of them judged)."""
        raise NotImplementedError

    # What every scorer shares ---------------------------------------------------------------

    @classmethod
    def unfinished(cls) -> str | None:
        """What the class lacks to be a scorer, in one line naming the member (a plugin
        lacking one is skipped when it is found, with this line); None when it has all.

        Every scorer sets `id`, `name`, `description` and `result_type` (a `ScoreResult`
        subclass) and defines `prepare()`; its `reads` are `READS` names. One that asks the
        model (it names a `prompt_package` holding a `<version>.toml`) also defines
        `question()` and `units()` and `aggregate()`; one that asks none defines no
        `question()`, and its `prepare()` returns each run's result."""
        for member in ("id", "name", "description"):
            if not isinstance(getattr(cls, member, None), str):
                return f"it does not set `{member}` (a string): every scorer does"
        result = getattr(cls, "result_type", None)
        if not (isinstance(result, type) and issubclass(result, ScoreResult)):
            return "it does not set `result_type` (a ScoreResult subclass): every scorer does"
        options = getattr(cls, "options_type", None)
        if not (isinstance(options, type) and issubclass(options, ScorerOptions)):
            return "its `options_type` is not a ScorerOptions subclass"
        unknown = [r for r in cls.reads if read_name(r) is None]
        if unknown:
            return f"its `reads` holds {unknown[0]!r}; each is one of {', '.join(READS)}"
        own = [m for m in ("prepare", "question", "units", "aggregate") if _defines(cls, m)]
        if "prepare" not in own:
            return "it does not define `prepare()`: every scorer does"
        if not cls.asks_model():
            if "question" in own:
                return (
                    "it defines `question()` but sets no `prompt_package`: a scorer that asks "
                    "the model names the package of its prompts"
                )
            return None
        if not cls.prompt_versions():
            return f"its prompts package {cls.prompt_package} holds no <version>.toml"
        for member in ("question", "units", "aggregate"):
            if member not in own and not (member == "question" and _defines(cls, "make_judge")):
                return (
                    f"it does not define `{member}()`, which a scorer that asks the model "
                    "(it sets `prompt_package`) defines"
                )
        return None

    def load_prompts(self, model: type[PS]) -> PS:
        """The scorer's prompt set of the run's prompt version, read as `model` (a
        `VersionedPrompts` subclass)."""
        if self.prompt_package is None:
            raise ConfigurationError(f"{self.name} asks no model: it has no prompts")
        return prompting.load(self.prompt_package, self.setup.prompt_version, model)

    @property
    def model_fingerprint(self) -> str:
        """The scorer's model fingerprint, and the judge's after a + when it is another;
        `NO_MODEL` for a scorer that asks no model."""
        if not self.asks_model():
            return NO_MODEL
        own = self.engine.identity.fingerprint
        if self.judge_engine is self.engine:
            return own
        return f"{own}+{self.judge_engine.identity.fingerprint}"

    @property
    def threshold(self) -> float:
        """A unit holds when its probability reaches this."""
        return self.judge.threshold

    @property
    def scale(self) -> float:
        return self.setup.scale or 1.0

    def assess(self, pairs: Sequence[Pair[Any]]) -> list[PairVerdict | Failed]:
        """Each (evidence, statement) pair judged exactly as the scorer judges it."""
        found = self._verdicts.lookup(list(dict.fromkeys(pairs)), self.judge.assess)
        return [found[pair] for pair in pairs]

    def run(self, run: ScorerInput | Mapping[str, Any]) -> R:
        """Score one run: `score` in [0, scale], a `reason`, and its verdicts."""
        return self.run_many([run])[0]

    def run_many(
        self, runs: Sequence[ScorerInput | Mapping[str, Any]], *, progress: Progress | None = None
    ) -> list[R]:
        """Score many runs in one pass over the engine; one run's failure is its own result,
        and so is a step of the scorer's own that exits or runs past its time limit (see
        guard.py), or a score that is not a number from 0 to the scale. `progress` (else the
        scorer's `progress`) is told how the batch's stages go.

        If the engine fails on the batch as a whole, the runs are scored one at a time, so
        that only a run that breaks it alone becomes an error result. Errors a user must fix
        (a missing model, a bad option) still stop the run."""
        told = progress if progress is not None else self.progress
        outer, self._batch_progress = self._batch_progress, told
        try:
            with Guard(step_seconds()) as guard:
                try:
                    scored = self._score_batch(runs, told, guard)
                except OfflineRecallError:
                    raise
                except Exception:
                    scored = [self._alone(run, told, guard) for run in runs]
            return [self._checked(r) for r in scored]
        finally:
            self._batch_progress = outer

    @property
    def batch_progress(self) -> Progress | None:
        """What the batch being scored tells how its stages go (see `run_many`): a scorer's
        `generate` reports its own stages to it."""
        return self._batch_progress

    def error_result(self, message: str, *, transient: bool = False) -> R:
        """The result of a run that could not be scored: no score, the reason stated;
        `transient` when the engine failed for a while rather than the run."""
        return self.result(
            None, f"Not scored: {message}", Status.ERROR, error=message, transient=transient
        )

    def result(
        self,
        score: float | None,
        reason: str,
        status: Status,
        *,
        error: str | None = None,
        **fields: Any,
    ) -> R:
        """A result stamped with what decided it; `fields` are the scorer's own."""
        made = self.result_type(
            scorer=self.id,
            score=score,
            reason=reason,
            status=status,
            error=error,
            model_fingerprint=self.model_fingerprint,
            prompt_version=self.setup.prompt_version,
            judge_profile=self.setup.judge_profile.digest if self.asks_model() else None,
            library_version=__version__,
            **fields,
        )
        return made  # type: ignore[return-value]

    def _made_judge(self) -> Judge[Any]:
        """`make_judge()`, the scorer's own (its `question()`): what it raises, an exit among
        them, is one line naming the scorer."""
        try:
            with Guard(None) as guard:
                return guard.stage("question()", self.make_judge)
        except OfflineRecallError:
            raise
        except Exception as e:
            said = str(e) if isinstance(e, StepFailed) else f"{type(e).__name__}: {e}"
            raise ConfigurationError(f"the scorer {self.id} cannot be built: {said}") from e

    def _checked(self, result: R) -> R:
        """`result` when it is one: of the scorer's result type, its score (but an error's) a
        number from 0 to the scale (as scores are rounded), every number in it finite; else
        the run's error saying what the scorer gave."""
        if not isinstance(result, self.result_type):
            given, wanted = type(result).__name__, self.result_type.__name__
            return self.error_result(f"the scorer gave a {given}, not a {wanted}")
        top = max(self.scale, round_half_up(self.scale))
        score = result.score
        if result.status is not Status.ERROR and not (
            score is not None and math.isfinite(score) and 0 <= score <= top
        ):
            return self.error_result(
                f"the scorer gave the score {score!r}, not a number from 0 to {self.scale:g}"
            )
        field = next((name for name, value in result if not _finite(value)), None)
        if field is not None:
            return self.error_result(
                f"the scorer's result holds a number that is not finite ({field})"
            )
        return result

    def _alone(
        self, run: ScorerInput | Mapping[str, Any], progress: Progress | None, guard: Guard
    ) -> R:
        """`run` scored in a batch of its own, after its batch broke: what breaks it is its
        error result."""
        try:
            return self._score_batch([run], progress, guard)[0]
        except OfflineRecallError:
            raise
        except StepFailed as e:
            return self.error_result(str(e))
        except Exception as e:
            return self.error_result(f"{type(e).__name__}: {e}")

    def _prepare(self, raw: ScorerInput | Mapping[str, Any], guard: Guard) -> T | R:
        try:
            return guard.step("prepare()", self.prepare, as_input(raw))
        except StepFailed as e:
            return self.error_result(str(e))
        except Exception as e:  # a bad run, or an extractor that raised: this run only
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")

    def _step(self, guard: Guard, what: str, code: Callable[..., V], *args: Any) -> V | R:
        """`code(*args)`, a step of the scorer's own for one run; what it raises is that run's
        error result (but an error a user must fix, which stops the run)."""
        try:
            return guard.step(what, code, *args)
        except StepFailed as e:
            return self.error_result(str(e))
        except OfflineRecallError:
            raise
        except Exception as e:
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")

    def _pairs(self, item: T) -> list[Pair[Any]]:
        """The pairs the judge decides for the item's units, each hashed once here (so that a
        unit that cannot be is its run's error)."""
        pairs = [u.pair for u in self.units(item)]
        for pair in pairs:
            hash(pair)
        return pairs

    def _score_batch(
        self,
        runs: Sequence[ScorerInput | Mapping[str, Any]],
        progress: Progress | None,
        guard: Guard,
    ) -> list[R]:
        prepared = [self._prepare(r, guard) for r in runs]
        if not self.asks_model():
            rule = f"{self.name} asks no model: its prepare() must return the run's result"
            return [
                p if isinstance(p, ScoreResult) else self.error_result(rule)  # type: ignore[misc]
                for p in prepared
            ]
        items = {i: p for i, p in enumerate(prepared) if not isinstance(p, ScoreResult)}
        generated: Mapping[int, T | Failed] = {}
        if items:
            with guard.running("generate()"):
                generated = self.generate(items)
        no_units: dict[int, R] = {}
        units: dict[int, list[Pair[Any]]] = {}
        for i, g in generated.items():
            if isinstance(g, Failed):
                continue
            found = self._step(guard, "units()", self._pairs, g)
            if isinstance(found, ScoreResult):
                no_units[i] = found
            else:
                units[i] = found
        pairs = list(dict.fromkeys(pair for found in units.values() for pair in found))

        def judge(pending: list[Pair[Any]]) -> list[PairVerdict | Failed]:
            done = stage(progress, self.judged, len(pending))
            return guard.stage("the judge", lambda: self.judge.assess(pending, done=done))

        assessed = self._verdicts.lookup(pairs, judge)
        self._verdicts.forget(p for p, a in assessed.items() if isinstance(a, Failed))

        results: list[R] = []
        for i, p in enumerate(prepared):
            if isinstance(p, ScoreResult):
                results.append(p)  # type: ignore[arg-type]
                continue
            item = generated[i]
            if isinstance(item, Failed):
                results.append(self.error_result(item.message, transient=item.transient))
                continue
            if i in no_units:
                results.append(no_units[i])
                continue
            own = {pair: assessed[pair] for pair in units[i]}
            failed = next((a for a in own.values() if isinstance(a, Failed)), None)
            if failed is not None:
                results.append(self.error_result(failed.message, transient=failed.transient))
            else:
                judged = {k: a for k, a in own.items() if isinstance(a, PairVerdict)}
                results.append(self._step(guard, "aggregate()", self.aggregate, item, judged))
        return results


def _finite(value: Any) -> bool:
    """Whether every number in `value` (a result's field: a number, or numbers in tuples,
    lists and dicts) is finite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, tuple | list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


def _defines(cls: type, member: str) -> bool:
    """Whether `cls` defines `member` itself or through a base other than `Pipeline`."""
    for base in cls.__mro__:
        if base is Pipeline:
            return False
        if member in vars(base):
            return True
    return False


ScorerClass: TypeAlias = type[Pipeline[Any, Any, Any]]
"""A scorer's class, as the registry holds it: its definition, and how it is built."""
