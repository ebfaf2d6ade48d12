"""The claim list a model is asked for, reading what it wrote, and the prompt set's rules."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints, ValidationError

from ...engines import Failed
from ...judging.lexicon import stem
from ...judging.polarity import opposite, polarity_mismatch
from ...judging.quantities import quantities, same_value
from ...judging.signals import STOP_WORDS, share_found, word_overlap, words_of
from ...text import split_sentences
from .prompts import ExtractPrompt

Claim = Annotated[str, StringConstraints(min_length=1)]


def claim_list_type(max_claims: int) -> type[BaseModel]:
    """The output type of extraction: `{"claims": [...]}` with 1..max_claims strings."""

    class ClaimList(BaseModel):
        claims: list[Claim] = Field(min_length=1, max_length=max_claims)

    return ClaimList


def finished_claims(raw: str) -> list[str]:
    """The complete strings of a `{"claims": [...]` output that was cut off mid-list."""
    decoder = json.JSONDecoder()
    start = raw.find("[")
    if start < 0:
        return []
    claims: list[str] = []
    pos = start + 1
    while True:
        pos = len(raw) - len(raw[pos:].lstrip(" \n\t,"))
        try:
            value, pos = decoder.raw_decode(raw, pos)
        except json.JSONDecodeError:
            return claims
        if isinstance(value, str) and value.strip():
            claims.append(value)


def parse_claims(raw: str, claims_type: type[BaseModel], limit: int) -> list[str] | Failed:
    """The claims of a constrained output, or why there are none.

    The grammar only lets the output stop early by running into the token bound, which a
    small model does by repeating itself inside one claim. The claims it finished before
    that stand; the runaway one is dropped.
    """
    try:
        claims: list[str] = claims_type.model_validate(json.loads(raw)).claims  # type: ignore[attr-defined]
        return claims
    except (json.JSONDecodeError, ValidationError):
        finished = finished_claims(raw)
        if finished:
            return finished
        return Failed(f"claim extraction did not finish a single claim in {limit} tokens")


_TOKEN = re.compile(r"[\w][\w.,'-]*[\w]|[\w]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")


def _details(text: str) -> tuple[set[str], set[str]]:
    """The numbers (digits, thousands separators dropped) and the names (capitalised words
    after a text's first word, case folded) a text holds."""
    tokens = _TOKEN.findall(_THOUSANDS.sub("", text))
    numbers = {t.strip(".,") for t in tokens if any(c.isdigit() for c in t)}
    names = {t.casefold() for t in tokens[1:] if t[:1].isupper() and t.casefold() not in STOP_WORDS}
    return numbers, names


def invented_details(claim: str, text: str) -> list[str]:
    """The numbers and names in `claim` that `text` does not hold: a claim with a date, a
    figure or a name of its own was made up, not extracted."""
    numbers, names = _details(claim)
    in_text = words_of(_THOUSANDS.sub("", text))
    have_numbers, _ = _details(text)
    made_up = [n for n in sorted(numbers) if n not in have_numbers]
    made_up += [n for n in sorted(names) if not set(re.findall(r"\w+", n)) <= in_text]
    return made_up


def invented_quantities(claim: str, text: str) -> list[float]:
    """The values `claim` states (in digits or words, with any unit) that `text` states in no
    form: "won two Nobel Prizes" from a sentence that counts none."""
    stated = [q.value for q in quantities(text)]
    return [q.value for q in quantities(claim) if not any(same_value(q.value, v) for v in stated)]


def ungrounded_predicate(claim: str, text: str, min_share: float) -> bool:
    """Whether less than `min_share` of what `claim` says of its subject (its content words
    after the subject, stemmed) is in `text`: "The Great Wall of China is a massive mountain."
    from a sentence about the wall's length names the wall and invents the rest."""
    said = {stem(w) for w in _content(claim) - _subject(claim)}
    if not said:
        return False
    found = {stem(w) for w in _content(text)}
    return len(said & found) / len(said) < min_share


def contained_claims(claims: Sequence[str]) -> list[str]:
    """The claims whose content words another claim holds all of, and more: "The vote was
    postponed." beside "The vote was postponed until Friday." repeats what the longer one
    says."""
    content = [_content(c) for c in claims]
    return [
        claim
        for i, claim in enumerate(claims)
        if content[i] and any(content[i] < other for other in content)
    ]


def reverses_its_text(claim: str, text: str) -> bool:
    """Whether `claim` negates the sentence of `text` it shares most words with, or holds the
    opposite of one of that sentence's words, while the sentence does not: the model wrote
    "Water does not boil at 100 degrees" from "Water boils at 100 degrees"."""
    sentences = split_sentences(text) or [text]
    content = {w for w in words_of(claim) if w not in STOP_WORDS}
    best = max(sentences, key=lambda s: len(words_of(s) & content))
    return polarity_mismatch(claim, [best], content) is not None or opposite(claim, best, content)


def settle_claims(
    text: str, found: list[str] | Failed, rules: ExtractPrompt, source: str | None = None
) -> list[str] | Failed:
    """The prompt set's rules applied to what the model extracted from `text`.

    A claim whose words are mostly absent from the text (or its `source`, the whole ground
    truth a sentence came from) was made up, not extracted: it is dropped, as is one holding a
    number or name the source does not, one that reverses its sentence (`reverses_its_text`,
    with `drop_reversed`), and (with `drop_trivial`) one that carries none of the
    text's content (see `trivial_claims`). A sentence of the text that the claims leave mostly
    uncovered was skipped by the model: it is added as a claim of its own. If nothing is left,
    the text's own sentences can stand in for its claims.
    """
    whole = text if source is None else source
    if not isinstance(found, Failed) and rules.min_grounding > 0:
        in_text = words_of(whole)
        found = [c for c in found if share_found(in_text, c) >= rules.min_grounding]
    if not isinstance(found, Failed) and rules.drop_invented:
        found = [c for c in found if not invented_details(c, whole)]
    if not isinstance(found, Failed) and rules.drop_invented_quantities:
        found = [c for c in found if not invented_quantities(c, whole)]
    if not isinstance(found, Failed) and rules.min_predicate_grounding > 0:
        share = rules.min_predicate_grounding
        found = [c for c in found if not ungrounded_predicate(c, whole, share)]
    if not isinstance(found, Failed) and rules.drop_reversed:
        found = [c for c in found if not reverses_its_text(c, text)]
    if not isinstance(found, Failed) and rules.drop_trivial:
        trivial = set(trivial_claims(text, found))
        found = [c for c in found if c not in trivial]
    if not isinstance(found, Failed) and found and rules.min_sentence_coverage > 0:
        said = words_of(" ".join(found))
        skipped = [
            s
            for s in split_sentences(text)
            if share_found(said, s) < rules.min_sentence_coverage and word_overlap(s, s) > 0
        ]
        found = [*found, *skipped]
    if not isinstance(found, Failed) and rules.drop_contained:
        contained = set(contained_claims(found))
        found = [c for c in found if c not in contained]
    if rules.fallback_to_sentences and (isinstance(found, Failed) or not found):
        sentences = split_sentences(text)
        if sentences:
            return sentences
    if not isinstance(found, Failed) and not found:
        return Failed("no extracted claim is grounded in the text")
    return found


def dedupe_claims(claims: Iterable[str]) -> list[str]:
    """Claims with blank ones and repeats (ignoring case and spacing) dropped, in order."""
    seen: set[str] = set()
    out: list[str] = []
    for claim in claims:
        text = " ".join(claim.split())
        key = text.casefold()
        if text and key not in seen:
            seen.add(key)
            out.append(text)
    return out


# Sentences that are one claim already, and claims that say nothing ----------------------

# Words and marks that join clauses or list items: a sentence holding one is not one claim.
_JOINERS = frozenset(
    {
        "and",
        "or",
        "but",
        "nor",
        "while",
        "whereas",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "after",
        "before",
        "because",
        "since",
        "although",
        "though",
        "unless",
        "until",
        "as",
        "than",
        "plus",
        "also",
        "then",
        "so",
        "yet",
        "if",
    }
)
_JOINING_MARKS = re.compile(r"[,;:()\[\]\u2013\u2014]|\s-\s")
_WORD = re.compile(r"\w+")


def single_claim(sentence: str, max_content_words: int) -> bool:
    """Whether `sentence` already is one claim, so that it stands for itself without a model
    call: one clause (no joining word such as "and", "which" or "after", no comma, semicolon,
    colon, parenthesis or dash) with at most `max_content_words` content words.

    Such a sentence states one fact; splitting it can only restate it or invent a weaker claim.
    """
    plain = _THOUSANDS.sub("", sentence)
    if _JOINING_MARKS.search(plain):
        return False
    words = _WORD.findall(plain.casefold())
    if any(w in _JOINERS for w in words):
        return False
    content = [w for w in words if w not in STOP_WORDS]
    return 0 < len(content) <= max_content_words


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(_THOUSANDS.sub("", text).casefold()) if w not in STOP_WORDS}


def _subject(sentence: str) -> set[str]:
    """The content words the sentence opens with, up to its first stop word after them: its
    subject, mostly ("The Amazon River is ..." -> amazon, river)."""
    subject: set[str] = set()
    for word in _WORD.findall(_THOUSANDS.sub("", sentence).casefold()):
        if word in STOP_WORDS:
            if subject:
                break
            continue
        subject.add(word)
    return subject


def _plain(claim: str) -> str:
    return " ".join(_WORD.findall(claim.casefold()))


def trivial_claims(sentence: str, claims: Sequence[str]) -> list[str]:
    """The claims of `sentence` that carry none of its content: a claim whose content words
    are all in the sentence's subject ("The Amazon River is a river." from a sentence about
    its length), and a fragment that another claim of the sentence holds after its start
    (the tail of a claim, its subject cut off)."""
    subject = _subject(sentence)
    whole = _content(sentence)
    plain = [_plain(c) for c in claims]
    out: list[str] = []
    for i, claim in enumerate(claims):
        words = _content(claim)
        restates = bool(words) and words <= subject and words != whole
        tail = any(
            j != i
            and plain[i]
            and plain[i] != other
            and f" {plain[i]} " in f" {other} "
            and not f"{other} ".startswith(f"{plain[i]} ")
            for j, other in enumerate(plain)
        )
        if restates or tail:
            out.append(claim)
    return out
