"""The labelled pairs judged on a run's model, once for every signal set: each pair's
signals, the profile in use judged on the same pairs, and the behaviour cases judged as the
pairs are (for each fitted profile's card)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from ...engines import Engine, Failed
from ...errors import DatasetError
from ...judging.behaviour import JudgeCard, card_of, cases
from ...judging.judge import Judge, signal_values
from ...judging.labelled import LabelledPair
from ...judging.profile import JudgeProfile
from ...text import pack
from ..spec import ScorerSpec
from .fit import claim_auroc

JudgedPairs = tuple[tuple[LabelledPair, dict[str, float]], ...]
"""Each pair judged (a context cut into chunks is one pair a chunk) with its signals."""


class Judged(Protocol):
    """A scorer that judges (context chunk, statement) pairs: every scorer here."""

    judge: Judge[Any]

    @property
    def context_budget(self) -> int: ...


class Asked(NamedTuple):
    """What the model said of the pairs, once for every signal set."""

    judged: JudgedPairs
    failed: int
    """Pairs the engine could not judge."""
    replaced_auroc: float | None
    """The profile in use's AUROC on the judged pairs (None: not compared, or one label)."""
    on_cases: list[dict[str, float] | Failed] | None
    """The behaviour cases' signals, for each profile's card (None: claims not text)."""


def ask(
    engine: Engine,
    scorer: Judged,
    labelled: Sequence[LabelledPair],
    current: ScorerSpec,
    *,
    evidence: int | None,
    with_model: bool,
    compare: bool,
) -> Asked:
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
    return Asked(kept, len(chunked) - len(kept), replaced_auroc, on_cases)


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
