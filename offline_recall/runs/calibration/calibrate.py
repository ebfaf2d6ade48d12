"""Fitting a judge profile for a run's model on labelled (context, claim, label) rows: every
pair judged once on the model (`judged.py`), a profile fitted (`fit.py`) for each signal set
asked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

from ...errors import ConfigurationError
from ...judging.labelled import LabelledPair
from ...judging.negatives import kind_of, with_negatives
from ...judging.profile import MODEL_SIGNAL, JudgeProfile
from ...scorer.registry import RECALL
from ..resolve import ResolvedRun
from ..session import Scoring
from ..spec import RunSpec, ScorerSpec
from .fit import SIGNAL_SETS, fit_profile
from .judged import Asked, Judged, JudgedPairs, ask, profile_card
from .run import started


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
    judged: JudgedPairs = ()
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
    with started(spec, scoring) as built:
        if isinstance(spec, ResolvedRun):
            spec = spec.spec
        found = built.scorers.get(scorer_id)
        if found is None:
            raise ConfigurationError(f"the run spec has no {scorer_id} to calibrate")
        if negatives:
            labelled = with_negatives(labelled)
        current = spec.scorer(scorer_id)
        asked = ask(
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


class _SetFit(NamedTuple):
    """How each signal set's profile is fitted on the judged pairs."""

    spec: RunSpec
    scorer_id: str
    evidence: int | None
    korean: str | None
    folds: int
    seed: int
    trained_on: str

    def profile(self, name: str, asked: Asked) -> JudgeProfile:
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
