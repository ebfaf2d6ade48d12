"""Fitting a judge profile for a run spec's model on labelled (context, claim, label) rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..engines import Failed
from ..errors import ConfigurationError, DatasetError
from ..judging.calibrate import SIGNAL_SETS, fit_profile
from ..judging.judge import signal_values
from ..judging.labelled import LabelledPair
from ..judging.profile import MODEL_SIGNAL, JudgeProfile
from ..scorers.recall import ID as RECALL
from ..scorers.recall import ContextRecallScorer
from ..text import pack
from .spec import RunSpec, Scoring


class Calibration(NamedTuple):
    """A fitted profile, with how many claims and (chunk, claim) pairs it was fitted on."""

    profile: JudgeProfile
    claims: int
    pairs: int
    failed: int


def calibrate(
    spec: RunSpec,
    labelled: Sequence[LabelledPair],
    *,
    scoring: Scoring | None = None,
    signals: str = "all",
    evidence_sentences: int | None = 3,
    folds: int = 5,
    seed: int = 0,
    trained_on: str = "",
) -> Calibration:
    """Judge every labelled pair once on the spec's model (as its recall scorer asks the
    model), then fit a profile over the chosen signals with cross-validation grouped by claim.

    Contexts longer than a chunk are cut as the scorer cuts them; a pair the engine could not
    judge is left out and counted.
    """
    if signals not in SIGNAL_SETS:
        raise ConfigurationError(f"unknown signal set {signals!r}; known: {', '.join(SIGNAL_SETS)}")
    chosen = SIGNAL_SETS[signals]
    built = scoring or spec.build()
    scorer = built.scorers.get(RECALL)
    if not isinstance(scorer, ContextRecallScorer):
        raise ConfigurationError("calibration fits the context recall judge: add its scorer")
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
        with_model=MODEL_SIGNAL in chosen,
    )
    kept = [(p, v) for p, v in zip(chunked, values, strict=True) if not isinstance(v, Failed)]
    if not kept:
        raise DatasetError("no labelled pair could be judged")
    setup = spec.scorer(RECALL).setup
    profile = fit_profile(
        [p for p, _ in kept],
        [v for _, v in kept if not isinstance(v, Failed)],
        fingerprint=spec.model_fingerprint,
        prompt_version=setup.prompt_version,
        scorer=RECALL,
        signals=chosen,
        evidence_sentences=evidence if MODEL_SIGNAL in chosen else None,
        folds=folds,
        seed=seed,
        trained_on=trained_on,
    )
    return Calibration(
        profile=profile,
        claims=len({p.group for p in labelled}),
        pairs=len(kept),
        failed=len(chunked) - len(kept),
    )
