"""Fitting a judge profile for a run spec's model on labelled (context, claim, label) rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, cast

from ..engines import Engine, Failed
from ..errors import ConfigurationError, DatasetError
from ..judging.behaviour import JudgeCard, card_of, cases
from ..judging.calibrate import SIGNAL_SETS, claim_auroc, fit_profile
from ..judging.judge import Judge, signal_values
from ..judging.labelled import LabelledPair
from ..judging.negatives import kind_of, with_negatives
from ..judging.profile import MODEL_SIGNAL, JudgeProfile
from ..scorer.registry import RECALL
from ..text import pack
from .resolve import ResolvedRun, resolve_recorded
from .session import Scoring
from .spec import RunSpec, ScorerSpec


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
    judged: tuple[tuple[LabelledPair, dict[str, float]], ...] = ()
    """Each pair judged (a context cut into chunks is one pair a chunk) with its signals."""


class Judged(Protocol):
    """A scorer that judges (context chunk, statement) pairs: every scorer here."""

    judge: Judge[Any]

    @property
    def context_budget(self) -> int: ...


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
    judge is left out and counted. `spec` is a resolved run, or a spec resolved here unless
    `scoring` (the run started) is given.
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
    if scoring is not None:
        built = scoring
    else:
        built = Scoring.start(spec if isinstance(spec, ResolvedRun) else resolve_recorded(spec))
    if isinstance(spec, ResolvedRun):
        spec = spec.spec
    found = built.scorers.get(scorer_id)
    if found is None:
        raise ConfigurationError(f"the run spec has no {scorer_id} to calibrate")
    if negatives:
        labelled = with_negatives(labelled)
    scorer = cast(Judged, found)
    count = built.engine.count_tokens
    chunked = [
        LabelledPair(context=piece, claim=p.claim, label=p.label, group=p.group)
        for p in labelled
        for piece in pack(p.context, scorer.context_budget, count)
    ]
    evidence = evidence_sentences or None
    values = signal_values(
        built.engine,
        scorer.judge.question,
        [(p.context, p.claim) for p in chunked],
        evidence_sentences=evidence,
        with_model=any(MODEL_SIGNAL in SIGNAL_SETS[name] for name in (*sets, korean) if name),
    )
    kept = tuple((p, v) for p, v in zip(chunked, values, strict=True) if not isinstance(v, Failed))
    if not kept:
        raise DatasetError("no labelled pair could be judged")
    setup = spec.scorer(scorer_id).setup
    current = spec.scorer(scorer_id)
    replaced_auroc = (
        profile_auroc(
            Judge(built.engine, scorer.judge.question, current.setup.judge_profile),
            [p for p, _ in kept],
        )
        if compare
        else None
    )
    with_model = any(MODEL_SIGNAL in SIGNAL_SETS[name] for name in (*sets, korean) if name)
    on_cases = (
        _case_values(built.engine, scorer, evidence, with_model)
        if all(isinstance(p.claim, str) for p in labelled)
        else None
    )
    fitted = {}
    for name in sets:
        chosen = SIGNAL_SETS[name]
        profile = fit_profile(
            [p for p, _ in kept],
            [v for _, v in kept],
            fingerprint=spec.model_fingerprint,
            prompt_version=setup.prompt_version,
            scorer=scorer_id,
            signals=chosen,
            evidence_sentences=evidence
            if MODEL_SIGNAL in (*chosen, *SIGNAL_SETS.get(korean or "", ()))
            else None,
            folds=folds,
            seed=seed,
            trained_on=trained_on,
            korean_signals=SIGNAL_SETS[korean] if korean else None,
        )
        if on_cases is not None:
            profile = profile.model_copy(update={"card": profile_card(profile, on_cases)})
        fitted[name] = Calibration(
            profile=profile,
            claims=len({p.group for p in labelled if kind_of(p.group) is None}),
            pairs=len(kept),
            failed=len(chunked) - len(kept),
            replaced=current,
            replaced_auroc=replaced_auroc,
            judged=kept,
        )
    return fitted


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
