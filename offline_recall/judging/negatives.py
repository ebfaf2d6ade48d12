"""The negatives a user meets, made from labelled pairs, for every fit of a judge profile.

A labelled set's negatives are whatever its annotators found (WiCE's are all partly supported:
every one shares words with its context). A rule fitted on them alone may learn that sharing
words marks an unsupported claim, and then call a claim supported by a context that never
mentions it. So a fit also sees, made by rule from the set's own claims:

- **unrelated**: each claim against another claim's context (one that shares none of its
  chunks), unsupported;
- **contradicted**: each supported claim changed so that the context it came with says
  otherwise, against that context, unsupported: a number changed (digits or a number word),
  a name swapped for one of another claim, a negation added or removed, a word replaced by
  its opposite.

Each made claim is a group of its own, named by its kind, so that results can be reported by
kind. The choices are seeded by a hash of the claim: the same pairs make the same negatives.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

from .labelled import LabelledPair
from .quantities import SMALL_NUMBERS

UNRELATED = "unrelated"
NUMBER = "number"
NAME = "name"
NEGATION = "negation"
OPPOSITE = "opposite"
KINDS = (UNRELATED, NUMBER, NAME, NEGATION, OPPOSITE)
"""The kinds of made negatives, in the order they are made."""

_NUMBER_WORDS = (*SMALL_NUMBERS[1:13], "twenty", "hundred", "thousand")
"""One to twelve, and words for larger numbers a claim may hold."""
_DIGITS = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])")
_WORD_NUMBER = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
_AUXILIARY = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|does|did|do)\b(?! not\b)"
)
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do) not\b")
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b")
_WORD = re.compile(r"[A-Za-z]+")
_OPPOSITES = """won lost|win lose|wins loses|rose fell|rise fall|rises falls|increased decreased
increase decrease|increases decreases|higher lower|highest lowest|larger smaller|largest smallest
bigger smaller|before after|opened closed|open closed|started ended|began ended|allowed forbidden
accepted rejected|approved rejected|supported opposed|successful unsuccessful|success failure
north south|east west|older younger|oldest youngest|earlier later|early late|public private
positive negative|strong weak|stronger weaker|long short|longer shorter|best worst|better worse
above below|maximum minimum|majority minority|internal external|domestic foreign|ancient modern
full empty|heavy light|fast slow|faster slower|deep shallow|wide narrow|true false|joined left
gained lost|expanded shrank|raised lowered|add remove|added removed|entered exited|hired fired
legal illegal|possible impossible|safe dangerous|cheap expensive|rich poor|alive dead"""
OPPOSITES: dict[str, str] = {}
"""Clear opposites, both ways: words whose swap says the other thing about the same subject."""
for _pair in _OPPOSITES.replace("\n", "|").split("|"):
    _a, _b = _pair.split()
    OPPOSITES.setdefault(_a, _b)
    OPPOSITES.setdefault(_b, _a)


def rank(key: str) -> str:
    """A seeded, stable order: the sha256 of `key`."""
    return hashlib.sha256(key.encode()).hexdigest()


def group_of(kind: str, group: str) -> str:
    """The group of a claim made of `kind` from claim `group`."""
    return f"{kind}:{group}"


def kind_of(group: str) -> str | None:
    """The kind of a made claim's group; None for a labelled claim's."""
    kind, _, rest = group.partition(":")
    return kind if rest and kind in KINDS else None


def unrelated(pairs: Sequence[LabelledPair]) -> list[LabelledPair]:
    """Each claim against the first context of the next claim, in a seeded order, whose
    contexts are none of its own: a claim of its own, unsupported."""
    contexts: dict[str, list[str]] = {}
    claims: dict[str, LabelledPair] = {}
    for p in pairs:
        contexts.setdefault(p.group, []).append(p.context)
        claims.setdefault(p.group, p)
    order = sorted(contexts, key=lambda g: rank(group_of(UNRELATED, g)))
    found = []
    for i, group in enumerate(order):
        others = (order[(i + k) % len(order)] for k in range(1, len(order)))
        other = next((g for g in others if not set(contexts[g]) & set(contexts[group])), None)
        if other is not None:
            found.append(
                LabelledPair(
                    context=contexts[other][0],
                    claim=claims[group].claim,
                    label=False,
                    group=group_of(UNRELATED, group),
                )
            )
    return found


def _other_number(text: str, seed: str) -> str:
    """A number other than `text`, of the same form."""
    if text.isdigit():
        value = int(text)
        step = 1 + int(seed[:4], 16) % 9
        return str(value + step if value >= 1000 or value < 10 else value * 2 + step)
    word = text.casefold()
    choices = [w for w in _NUMBER_WORDS[:12] if w != word]
    chosen = choices[int(seed[:4], 16) % len(choices)]
    return chosen.capitalize() if text[0].isupper() else chosen


def changed_number(claim: str, context: str, seed: str) -> str | None:
    """The claim with its first number changed to one the context does not state."""
    for pattern in (_DIGITS, _WORD_NUMBER):
        for match in pattern.finditer(claim):
            other = _other_number(match.group(0), seed)
            if other.casefold() not in context.casefold():
                return claim[: match.start()] + other + claim[match.end() :]
    return None


def negated(claim: str, context: str, seed: str) -> str | None:
    """The claim with a negation removed, or added after its first auxiliary verb."""
    removed = _NEGATED.search(claim)
    if removed is not None:
        return claim[: removed.start()] + removed.group(1) + claim[removed.end() :]
    added = _AUXILIARY.search(claim)
    if added is None:
        return None
    return claim[: added.end()] + " not" + claim[added.end() :]


def opposed(claim: str, context: str, seed: str) -> str | None:
    """The claim with its first word that has a clear opposite (`OPPOSITES`) replaced by it,
    an opposite the context does not hold."""
    words = set(_WORD.findall(context.casefold()))
    for match in _WORD.finditer(claim):
        word = match.group(0)
        other = OPPOSITES.get(word.casefold())
        if other is not None and other not in words:
            other = other.capitalize() if word[0].isupper() else other
            return claim[: match.start()] + other + claim[match.end() :]
    return None


def _swapped_name(names: Sequence[str]) -> Callable[[str, str, str], str | None]:
    def swapped(claim: str, context: str, seed: str) -> str | None:
        """The claim with its first name (a capitalised word inside the sentence) replaced by
        another claim's name that the context does not mention."""
        found = _NAME.search(claim)
        if found is None or not names:
            return None
        start = int(seed[:6], 16) % len(names)
        for k in range(len(names)):
            other = names[(start + k) % len(names)]
            if other.casefold() not in context.casefold() and other not in claim:
                return claim[: found.start()] + other + claim[found.end() :]
        return None

    return swapped


def contradicted(pairs: Sequence[LabelledPair]) -> list[LabelledPair]:
    """For each supported claim, one changed claim of each kind that applies to it, against
    each of its contexts: unsupported, a group of its own."""
    supported: dict[str, list[LabelledPair]] = {}
    for p in pairs:
        if p.label and isinstance(p.claim, str):
            supported.setdefault(p.group, []).append(p)
    names = sorted(
        {m.group(1) for ps in supported.values() for m in _NAME.finditer(str(ps[0].claim))},
        key=rank,
    )
    makers: dict[str, Callable[[str, str, str], str | None]] = {
        NUMBER: changed_number,
        NAME: _swapped_name(names),
        NEGATION: negated,
        OPPOSITE: opposed,
    }
    found = []
    for group, own in supported.items():
        claim = str(own[0].claim)
        every = " ".join(p.context for p in own)
        for kind, make in makers.items():
            made = make(claim, every, rank(group_of(kind, group)))
            if made is None or made == claim:
                continue
            found += [
                LabelledPair(
                    context=p.context, claim=made, label=False, group=group_of(kind, group)
                )
                for p in own
            ]
    return found


def with_negatives(pairs: Sequence[LabelledPair]) -> list[LabelledPair]:
    """`pairs`, then the unrelated and contradicted claims made from them."""
    return [*pairs, *unrelated(pairs), *contradicted(pairs)]
