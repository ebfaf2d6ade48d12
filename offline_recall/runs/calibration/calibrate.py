"""Fitting a judge profile for a run's model on labelled (context, claim, label) rows: the run
resolved for the scorer to calibrate, every pair judged once on its model, a profile fitted
(`fit.py`) for each signal set asked."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, Protocol, cast

from ...engines import AUTO, Engine, Failed
from ...errors import ConfigurationError, DatasetError
from ...judging.behaviour import JudgeCard, card_of, cases
from ...judging.judge import Judge, signal_values
from ...judging.labelled import LabelledPair
from ...judging.negatives import kind_of, with_negatives
from ...judging.profile import MODEL_SIGNAL, JudgeProfile, UnreadableProfile
from ...paths import cache_root
from ...scorer.registry import RECALL
from ...text import pack
from ..resolve import ResolvedRun, resolve_recorded, resolve_run
from ..session import Scoring
from ..spec import RunSpec, ScorerSpec
from .fit import SIGNAL_SETS, claim_auroc, fit_profile

Judgments = tuple[tuple[LabelledPair, dict[str, float]], ...]
"""Each pair judged (a context cut into chunks is one pair a chunk) with its signals."""


class Calibration(NamedTuple):
    """A fitted profile, with how many claims and (chunk, claim) pairs it was fitted on, and
    how the profile it would replace does on the same rows."""

    profile: JudgeProfile
    claims: int
    pairs: int
    failed: int
    replaced: ScorerSpec
    """The profile runs of this model use now, and where it came from."""
    replaced_auroc: float | None
    """That profile's AUROC on these rows (claims by their best chunk)."""
    judged: Judgments = ()
    """Each pair judged (a context cut into chunks is one pair a chunk) with its signals."""

    def losses(self) -> list[str]:
        """What the profile loses to, on these rows: word overlap (its cross-validated AUROC
        or balanced accuracy), or the profile in use (its AUROC); each said in a clause."""
        checked = self.profile.cross_validated
        assert checked is not None  # fit_profile always cross-validates
        losses = []
        if checked.auroc < checked.baseline_auroc:
            losses.append(
                f"its cross-validated AUROC {checked.auroc:.3f} is under word overlap's "
                f"{checked.baseline_auroc:.3f}"
            )
        if checked.balanced_accuracy < checked.baseline_balanced_accuracy:
            losses.append(
                f"its cross-validated balanced accuracy {checked.balanced_accuracy:.3f} is "
                f"under word overlap's {checked.baseline_balanced_accuracy:.3f}"
            )
        if self.replaced_auroc is not None and checked.auroc < self.replaced_auroc:
            losses.append(
                f"it is under the {self.replaced.profile_origin.value} profile in use, whose "
                f"AUROC on these rows is {self.replaced_auroc:.3f}"
            )
        return losses


class Judged(Protocol):
    """A scorer that judges (context chunk, statement) pairs: every scorer here."""

    judge: Judge[Any]

    @property
    def context_budget(self) -> int: ...


def _silent(_: str) -> None:
    pass


def calibration_run(
    model: str,
    *,
    scorer_id: str = RECALL,
    backend: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    set_aside: bool = False,
    say: Callable[[str], None] = _silent,
) -> ResolvedRun:
    """The run whose judge `calibrate` fits: `model` on `backend`, scoring `scorer_id` alone
    (extracting nothing). An installed profile that cannot be read is what calibration
    replaces: with `set_aside` it is renamed `*.unreadable` (`say` tells where) and the run
    resolved without it; without, the error says so."""
    aside: set[Path] = set()
    while True:
        try:
            return resolve_run(
                model,
                engine=backend,
                engine_options=engine_options,
                scorers=[scorer_id],
                extracting=False,
            )
        except UnreadableProfile as e:
            installed = e.path.parent == cache_root() / "profiles"
            if not installed or e.path in aside:
                raise
            if not set_aside:
                raise ConfigurationError(
                    f"{e}; calibrate --force sets it aside and installs the new fit"
                ) from None
            moved = _set_aside(e)
            aside.add(e.path)
            say(f"set the unreadable profile {e.path.name} aside as {moved}")


def _set_aside(unreadable: UnreadableProfile) -> Path:
    """The unreadable profile renamed `*.unreadable`, where it now is."""
    aside = unreadable.path.with_name(unreadable.path.name + ".unreadable")
    try:
        unreadable.path.replace(aside)
    except OSError as moved:
        raise ConfigurationError(
            f"{unreadable}; it cannot be set aside ({moved.strerror}): delete it"
        ) from None
    return aside


def calibrate(
    spec: RunSpec | ResolvedRun,
    labelled: Sequence[LabelledPair],
    *,
    scorer_id: str = RECALL,
    scoring: Scoring | None = None,
    signals: str = "all",
    evidence_sentences: int | None = 3,
    folds: int = 5,
    seed: int = 0,
    trained_on: str = "",
    compare: bool = True,
    negatives: bool = True,
) -> Calibration:
    """Judge every labelled pair once on the spec's model (as the scorer `scorer_id` asks
    the model), then fit a profile over the chosen signals with cross-validation grouped by
    claim (for precision, by chunk). With `compare`, the profile in use is judged on the same
    rows too (which asks the model again when that profile uses it).

    Contexts longer than a chunk are cut as the scorer cuts them; a pair the engine could not
    judge is left out and counted. `spec` is a resolved run, or a spec resolved here; unless
    `scoring` (the run started) is given, its engines are started here and closed once the
    pairs are judged.
    """
    fitted = calibrate_sets(
        spec,
        labelled,
        (signals,),
        scorer_id=scorer_id,
        scoring=scoring,
        evidence_sentences=evidence_sentences,
        folds=folds,
        seed=seed,
        trained_on=trained_on,
        compare=compare,
        negatives=negatives,
    )
    return fitted[signals]


class _Asked(NamedTuple):
    """What the model said of the pairs, once for every signal set."""

    judged: Judgments
    failed: int
    """Pairs the engine could not judge."""
    replaced_auroc: float | None
    on_cases: list[dict[str, float] | Failed] | None
    """The behaviour cases' signals, for each profile's card (None: claims not text)."""


def calibrate_sets(
    spec: RunSpec | ResolvedRun,
    labelled: Sequence[LabelledPair],
    sets: Sequence[str],
    *,
    scorer_id: str = RECALL,
    scoring: Scoring | None = None,
    evidence_sentences: int | None = 3,
    folds: int = 5,
    seed: int = 0,
    trained_on: str = "",
    compare: bool = True,
    korean: str | None = None,
    negatives: bool = True,
) -> dict[str, Calibration]:
    """`calibrate` for several signal sets on one judging of the pairs: the model is asked
    once per pair, whichever sets use its answer. With `korean` (a signal set), claims written
    in Hangul get a rule of their own over that set in every profile. With `negatives`, the
    fit also sees the unsupported claims made from the labelled ones (`judging.negatives`:
    each claim against an unrelated context, each supported claim contradicted by rule)."""
    if unknown := [name for name in (*sets, korean) if name and name not in SIGNAL_SETS]:
        raise ConfigurationError(
            f"unknown signal set {unknown[0]!r}; known: {', '.join(SIGNAL_SETS)}"
        )
    with_model = any(MODEL_SIGNAL in SIGNAL_SETS[name] for name in (*sets, korean) if name)
    with _started(spec, scoring) as built:
        if isinstance(spec, ResolvedRun):
            spec = spec.spec
        found = built.scorers.get(scorer_id)
        if found is None:
            raise ConfigurationError(f"the run spec has no {scorer_id} to calibrate")
        if negatives:
            labelled = with_negatives(labelled)
        current = spec.scorer(scorer_id)
        asked = _ask(
            built.engine,
            cast(Judged, found),
            labelled,
            current,
            evidence=evidence_sentences or None,
            with_model=with_model,
            compare=compare,
        )
    fit = _SetFit(spec, scorer_id, evidence_sentences or None, korean, folds, seed, trained_on)
    claims = len({p.group for p in labelled if kind_of(p.group) is None})
    return {
        name: Calibration(
            profile=fit.profile(name, asked),
            claims=claims,
            pairs=len(asked.judged),
            failed=asked.failed,
            replaced=current,
            replaced_auroc=asked.replaced_auroc,
            judged=asked.judged,
        )
        for name in sets
    }


@contextmanager
def _started(spec: RunSpec | ResolvedRun, scoring: Scoring | None) -> Iterator[Scoring]:
    """`scoring` if given (left open), else the spec's run started here and closed after."""
    if scoring is not None:
        yield scoring
        return
    built = Scoring.start(spec if isinstance(spec, ResolvedRun) else resolve_recorded(spec))
    try:
        yield built
    finally:
        built.close()


def _ask(
    engine: Engine,
    scorer: Judged,
    labelled: Sequence[LabelledPair],
    current: ScorerSpec,
    *,
    evidence: int | None,
    with_model: bool,
    compare: bool,
) -> _Asked:
    """Every labelled pair judged on `engine` as `scorer` asks (contexts cut into its chunks),
    the profile in use judged on the pairs it could judge (with `compare`), and the behaviour
    cases judged as the pairs are."""
    count = engine.count_tokens
    chunked = [
        LabelledPair(context=piece, claim=p.claim, label=p.label, group=p.group)
        for p in labelled
        for piece in pack(p.context, scorer.context_budget, count)
    ]
    values = signal_values(
        engine,
        scorer.judge.question,
        [(p.context, p.claim) for p in chunked],
        evidence_sentences=evidence,
        with_model=with_model,
    )
    kept = tuple((p, v) for p, v in zip(chunked, values, strict=True) if not isinstance(v, Failed))
    if not kept:
        raise DatasetError("no labelled pair could be judged")
    replaced_auroc = (
        profile_auroc(
            Judge(engine, scorer.judge.question, current.setup.judge_profile),
            [p for p, _ in kept],
        )
        if compare
        else None
    )
    on_cases = (
        _case_values(engine, scorer, evidence, with_model)
        if all(isinstance(p.claim, str) for p in labelled)
        else None
    )
    return _Asked(kept, len(chunked) - len(kept), replaced_auroc, on_cases)


class _SetFit(NamedTuple):
    """How each signal set's profile is fitted on the judged pairs."""

    spec: RunSpec
    scorer_id: str
    evidence: int | None
    korean: str | None
    folds: int
    seed: int
    trained_on: str

    def profile(self, name: str, asked: _Asked) -> JudgeProfile:
        """The profile over the signal set `name`, with its card on the behaviour cases."""
        chosen = SIGNAL_SETS[name]
        asks_model = MODEL_SIGNAL in (*chosen, *SIGNAL_SETS.get(self.korean or "", ()))
        profile = fit_profile(
            [p for p, _ in asked.judged],
            [v for _, v in asked.judged],
            fingerprint=self.spec.model_fingerprint,
            prompt_version=self.spec.scorer(self.scorer_id).setup.prompt_version,
            scorer=self.scorer_id,
            signals=chosen,
            evidence_sentences=self.evidence if asks_model else None,
            folds=self.folds,
            seed=self.seed,
            trained_on=self.trained_on,
            korean_signals=SIGNAL_SETS[self.korean] if self.korean else None,
        )
        if asked.on_cases is None:
            return profile
        return profile.model_copy(update={"card": profile_card(profile, asked.on_cases)})


def _case_values(
    engine: Engine, scorer: Judged, evidence: int | None, with_model: bool
) -> list[dict[str, float] | Failed]:
    """The signals of every behaviour case, judged as the calibration pairs are."""
    return signal_values(
        engine,
        scorer.judge.question,
        [(c.context, c.claim) for c in cases()],
        evidence_sentences=evidence,
        with_model=with_model,
    )


def profile_card(
    profile: JudgeProfile, values: Sequence[dict[str, float] | Failed]
) -> JudgeCard | None:
    """`profile`'s card on the behaviour cases whose signals are `values` (the model's P(yes)
    among them where it asks the model), each case decided as a run decides it
    (`JudgeProfile.probability_of`); None when the engine failed on a case."""
    decisions = []
    for case, found in zip(cases(), values, strict=True):
        if isinstance(found, Failed):
            return None
        decisions.append(profile.probability_of(case.claim, found) >= profile.threshold)
    return card_of(decisions)


def profile_auroc(judge: Judge[Any], labelled: Sequence[LabelledPair]) -> float | None:
    """How well `judge` separates the labelled claims (AUROC of each claim's best pair); None
    when a pair cannot be judged or only one label is present."""
    found = judge.assess([(p.context, p.claim) for p in labelled])
    probabilities = [a.probability for a in found if not isinstance(a, Failed)]
    if len(probabilities) != len(found):
        return None
    return claim_auroc(labelled, probabilities)
