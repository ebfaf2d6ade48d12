"""The behaviour cases every judge is gated on, and its card: how often it is right per kind.

A case is a context, a claim and whether the context supports it, of one kind: an unrelated
context; a claim whose number, name, place, polarity or a word the context contradicts; a
paraphrase; a plain restatement (a control). Some Korean number cases state the context's
number in another form (12시간 for 열두 시간, 5만 원 for 50,000원: supported), and some Korean
paraphrase cases reword the context into another meaning (a partnership told as a takeover:
unsupported), so neither kind is passed by a judge that always answers one way.
`behaviour_cases.jsonl` holds them, in English and Korean. A profile's card is its count right
per kind, and per language within each kind, computed when it is fitted and shown beside the
judge's name wherever a score is read, so a reader sees how far its verdicts can be trusted on
unrelated contexts, contradictions and paraphrases, in each language.

The gate every shipped profile passes: every unrelated case judged unsupported; and for a
profile that reads (asks the model), every other kind right at least `READING_TARGET` of the
time. A lexical rule's shares are reported, not gated: it cannot read meaning.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

UNRELATED = "unrelated"
KINDS = (
    UNRELATED,
    "number",
    "name",
    "place",
    "negation",
    "opposite",
    "paraphrase",
    "supported",
)
"""The kinds of case, in the order a card lists them."""
LANGUAGES = ("en", "ko")
"""The languages of the cases, in the order a card lists each kind's count in them."""
READING_TARGET = 0.9
"""The share of every kind but unrelated a profile that reads must get right."""


class Case(BaseModel):
    """One behaviour case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal[
        "unrelated", "number", "name", "place", "negation", "opposite", "paraphrase", "supported"
    ]
    language: Literal["en", "ko"]
    context: str
    claim: str
    supported: bool


@cache
def cases() -> tuple[Case, ...]:
    """Every behaviour case, in the file's order."""
    text = resources.files(__package__).joinpath("behaviour_cases.jsonl").read_text("utf-8")
    return tuple(Case.model_validate(json.loads(line)) for line in text.splitlines() if line)


Count = Annotated[int, Field(ge=0)]


class LanguageScore(BaseModel):
    """How many cases of one kind in one language a judge got right, of how many."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    language: str
    right: Count
    total: Count


class KindScore(BaseModel):
    """How many cases of one kind a judge got right, of how many, in all and per language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    right: Count
    total: Count
    languages: tuple[LanguageScore, ...] = Field(
        default=(),
        description="The same counts per language of the cases, in `LANGUAGES` order; empty "
        "on a card measured without them",
    )

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0

    def describe(self) -> str:
        """The kind's count, then each language's where the kind has cases in more than one:
        "paraphrase 80/105 (en 43/48, ko 37/57)"."""
        counts = f"{self.kind} {self.right}/{self.total}"
        if len(self.languages) < 2:
            return counts
        split = ", ".join(f"{x.language} {x.right}/{x.total}" for x in self.languages)
        return f"{counts} ({split})"


class JudgeCard(BaseModel):
    """A judge's count right per kind of behaviour case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kinds: tuple[KindScore, ...]

    def describe(self) -> str:
        """One line: each kind's right / total, split by language."""
        return ", ".join(k.describe() for k in self.kinds)

    def failures(self, reads: bool) -> list[str]:
        """The kinds that fail the gate: unrelated below all right, and for a judge that
        reads, any other kind below `READING_TARGET`."""
        found = []
        for k in self.kinds:
            gated = k.right < k.total if k.kind == UNRELATED else reads and k.share < READING_TARGET
            if gated:
                found.append(f"{k.kind} {k.right}/{k.total}")
        return found


def card_of(decisions: Sequence[bool], chosen: Sequence[Case] | None = None) -> JudgeCard:
    """The card of a judge that decided each case (`chosen`, by default every case) as
    `decisions` say (True: supported)."""
    every = cases() if chosen is None else chosen
    right: dict[tuple[str, str], list[bool]] = {}
    for case, supported in zip(every, decisions, strict=True):
        right.setdefault((case.kind, case.language), []).append(supported == case.supported)

    def score(kind: str) -> KindScore:
        languages = [
            LanguageScore(language=x, right=sum(marks), total=len(marks))
            for x in LANGUAGES
            if (marks := right.get((kind, x)))
        ]
        return KindScore(
            kind=kind,
            right=sum(x.right for x in languages),
            total=sum(x.total for x in languages),
            languages=tuple(languages),
        )

    return JudgeCard(kinds=tuple(score(k) for k in KINDS if any(k == kind for kind, _ in right)))
