"""The claim list a model is asked for, reading what it wrote, and the prompt set's rules."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints, ValidationError

from ...engines import Failed
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


def settle_claims(
    text: str, found: list[str] | Failed, rules: ExtractPrompt, source: str | None = None
) -> list[str] | Failed:
    """The prompt set's rules applied to what the model extracted from `text`.

    A claim whose words are mostly absent from the text (or its `source`, the whole ground
    truth a sentence came from) was made up, not extracted: it is dropped, as is one holding a
    number or name the source does not. A sentence of the text that the claims leave mostly
    uncovered was skipped by the model: it is added as a claim of its own. If nothing is left,
    the text's own sentences can stand in for its claims.
    """
    whole = text if source is None else source
    if not isinstance(found, Failed) and rules.min_grounding > 0:
        in_text = words_of(whole)
        found = [c for c in found if share_found(in_text, c) >= rules.min_grounding]
    if not isinstance(found, Failed) and rules.drop_invented:
        found = [c for c in found if not invented_details(c, whole)]
    if not isinstance(found, Failed) and found and rules.min_sentence_coverage > 0:
        said = words_of(" ".join(found))
        skipped = [
            s
            for s in split_sentences(text)
            if share_found(said, s) < rules.min_sentence_coverage and word_overlap(s, s) > 0
        ]
        found = [*found, *skipped]
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
