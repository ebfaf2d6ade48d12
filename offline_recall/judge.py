"""Attribution: the probability that a context supports a claim, from the model and the text.

The model's P(yes) and the lexical signals are combined by the model's judge profile. When
the profile names an evidence size, the model sees only the context's best-matching
sentences: short prompts, and the claim next to the lines that matter.
"""

from __future__ import annotations

from collections.abc import Sequence

from .backends import Backend
from .profile import MODEL_SIGNAL, JudgeProfile
from .signals import LEXICAL_SIGNALS, evidence, lexical_signals

Pair = tuple[str, str]  # (context, claim)


def model_pairs(pairs: Sequence[Pair], evidence_sentences: int | None) -> list[Pair]:
    """What the model is asked about each pair: the whole context or its best sentences."""
    if evidence_sentences is None:
        return list(pairs)
    return [(evidence(context, claim, evidence_sentences), claim) for context, claim in pairs]


def signal_values(
    backend: Backend,
    pairs: Sequence[Pair],
    *,
    evidence_sentences: int | None,
    with_model: bool = True,
    with_lexical: bool = True,
) -> list[dict[str, float]]:
    """Every signal a profile may use, for each pair (the model's only if `with_model`)."""
    values: list[dict[str, float]] = [
        lexical_signals(context, claim) if with_lexical else {} for context, claim in pairs
    ]
    if with_model and pairs:
        p_yes = backend.judge(model_pairs(pairs, evidence_sentences))
        for v, p in zip(values, p_yes, strict=True):
            v[MODEL_SIGNAL] = p
    return values


class Judge:
    """Decides attribution for a backend under a profile."""

    def __init__(self, backend: Backend, profile: JudgeProfile) -> None:
        self.backend = backend
        self.profile = profile

    @property
    def threshold(self) -> float:
        return self.profile.threshold

    def support(self, pairs: Sequence[Pair]) -> list[float]:
        """P(supported) for each (context, claim) pair, in order."""
        profile = self.profile
        values = signal_values(
            self.backend,
            pairs,
            evidence_sentences=profile.evidence_sentences,
            with_model=profile.uses_model,
            with_lexical=any(s in LEXICAL_SIGNALS for s in profile.signals),
        )
        return [profile.probability(v) for v in values]
