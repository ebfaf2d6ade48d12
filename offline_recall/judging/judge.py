"""A verdict's probability, from the model's answer and cheap signals of the text.

A judge asks whether an evidence text (a context chunk) supports a statement (a claim). The
model's P(yes) and the lexical signals are combined by a judge profile. When the profile names
an evidence size, the model sees only the evidence's best-matching sentences: short prompts,
and the statement next to the lines that matter.

Probabilities are recorded at a fixed precision, so a verdict never hangs on float noise.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from ..engines import Engine, Failed, Prompt
from ..engines.base import Done
from .profile import MODEL_SIGNAL, JudgeProfile
from .signals import evidence, lexical_signals

S = TypeVar("S", bound=Hashable)

Pair = tuple[str, S]
"""(evidence, statement): a context chunk and what it is judged against, a claim (`str`) or a
typed statement (context precision's question and answer). The word signals read a
statement's `str()`; the model is asked about it by the scorer's `Question`."""

DECIMALS = 6
"""Probabilities are rounded to this many decimals before any decision is taken on them."""


@dataclass(frozen=True)
class Question(Generic[S]):
    """How the model is asked about a pair: the prompt and the two answer words."""

    prompt: Callable[[str, S], Prompt]
    yes: str
    no: str


class PairVerdict(NamedTuple):
    """A pair judged: the profile's probability that it holds, and the model's own P(yes)
    when the profile asked the model."""

    probability: float
    model_p_yes: float | None


Assessment = PairVerdict
"""PairVerdict's former name, kept for scorers written against it."""


def model_pairs(pairs: Sequence[Pair[S]], evidence_sentences: int | None) -> list[Pair[S]]:
    """What the model is asked about each pair: the whole evidence or its best sentences."""
    if evidence_sentences is None:
        return list(pairs)
    return [
        (evidence(text, str(statement), evidence_sentences), statement) for text, statement in pairs
    ]


def model_p_yes(
    engine: Engine, question: Question[S], pairs: Sequence[Pair[S]], *, done: Done | None = None
) -> list[float | Failed]:
    """The model's P(yes) for each pair (renormalised over yes and no), in order."""
    prompts = [question.prompt(text, statement) for text, statement in pairs]
    found = engine.answer_probabilities(prompts, (question.yes, question.no), done=done)
    return [f if isinstance(f, Failed) else round(f[0], DECIMALS) for f in found]


def signal_values(
    engine: Engine,
    question: Question[S],
    pairs: Sequence[Pair[S]],
    *,
    evidence_sentences: int | None,
    with_model: bool = True,
    with_lexical: bool = True,
    done: Done | None = None,
) -> list[dict[str, float] | Failed]:
    """Every signal a profile may use, for each pair (the model's only if `with_model`);
    `done` is told as the model's answers come (see `Engine.answer_probabilities`)."""
    values: list[dict[str, float] | Failed] = [
        lexical_signals(text, str(statement)) if with_lexical else {} for text, statement in pairs
    ]
    if with_model and pairs:
        asked = model_p_yes(engine, question, model_pairs(pairs, evidence_sentences), done=done)
        for i, p in enumerate(asked):
            v = values[i]
            if isinstance(p, Failed):
                values[i] = p
            elif not isinstance(v, Failed):
                v[MODEL_SIGNAL] = p
    return values


class Judge(Generic[S]):
    """Decides pairs on an engine under a profile."""

    def __init__(self, engine: Engine, question: Question[S], profile: JudgeProfile) -> None:
        self.engine = engine
        self.question = question
        self.profile = profile

    @property
    def threshold(self) -> float:
        return self.profile.threshold

    def assess(
        self, pairs: Sequence[Pair[S]], *, done: Done | None = None
    ) -> list[PairVerdict | Failed]:
        """Each pair's probability under the profile (and the model's P(yes) if asked: a
        pair whose chunk states its claim word for word is not asked where the profile says
        so, see `JudgeProfile.stated_p_yes`). `done` is told as pairs are judged: the
        model's as it answers, then those decided without it."""
        profile = self.profile
        values = [
            lexical_signals(text, str(statement)) if profile.uses_lexical else {}
            for text, statement in pairs
        ]
        asked = [
            i
            for i, ((_, statement), v) in enumerate(zip(pairs, values, strict=True))
            if profile.asks_model(str(statement), v)
        ]
        answers: dict[int, float | Failed] = {}
        if asked:
            asking = model_pairs([pairs[i] for i in asked], profile.evidence_sentences)
            said = model_p_yes(self.engine, self.question, asking, done=done)
            answers = dict(zip(asked, said, strict=True))
        # The pairs decided without the model are told last, so that the pace progress
        # measures while the model works is the model's, not inflated by pairs that took none.
        if done is not None and len(asked) < len(pairs):
            done(len(pairs) - len(asked))
        found: list[PairVerdict | Failed] = []
        for i, ((_, statement), v) in enumerate(zip(pairs, values, strict=True)):
            p_yes = answers.get(i)
            if isinstance(p_yes, Failed):
                found.append(p_yes)
                continue
            if p_yes is not None:
                v[MODEL_SIGNAL] = p_yes
            probability = profile.probability_of(str(statement), v)
            found.append(PairVerdict(round(probability, DECIMALS), p_yes))
        return found
