"""Polarity and opposite words between a claim and the sentence that best matches it.

Word overlap cannot tell "aspirin is safe for children" from "aspirin is not safe for
children": every word of the claim is there. Two signals look at the words the claim and its
best evidence sentence share:

- polarity: one of them negates the shared words (not, no, never, n't, without, fails to, ...,
  scoped to the words after the cue up to the end of its clause) and the other does not. A
  negation denies its head, the first content word of its scope ("failed to ANSWER the door",
  "did not REDUCE costs", "no SERIOUS side effects"), so it counts against the other text only
  where that text states the head in some form: "failed to answer the door" says nothing about
  "staff found her body in the room", though both speak of the room;
- opposite: a word of the claim is absent from the sentence while its antonym is there and
  absent from the claim ("shares rose" against "shares fell"). The antonym pairs are Princeton
  WordNet 3.0's (`antonyms.txt`, written by `scripts/build_antonyms.py`), read from the package.
  Only free predicate words count: a word inside a hyphenated compound is part of another word
  ("27-year-old" is no "old" against "young"), and ordinals, prepositions, particles,
  quantifiers and nouns for people by sex or kin have antonyms but name no state a text could
  hold the other way round (see `_NOT_OPPOSITES`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import NamedTuple

from . import korean
from .lexicon import STOP_WORDS, related_words

_APOSTROPHE = "\u2019"
_TOKEN = re.compile(rf"\w+(?:['{_APOSTROPHE}]\w+)*|[^\w\s]")
_CUES = frozenset(
    [
        "not",
        "no",
        "never",
        "nor",
        "neither",
        "without",
        "none",
        "nobody",
        "nothing",
        "nowhere",
        "cannot",
        "unable",
        "fail",
        "fails",
        "failed",
        "failing",
        "lack",
        "lacks",
        "lacked",
        "lacking",
    ]
)
# A negation's scope ends at the end of its clause, or after this many words.
_SCOPE = 8
# Words of a negation's scope that are not what it denies: function words, auxiliaries ("did
# not BE"), "able to", adverbs of degree or focus ("not even", "never really") and pronouns.
_SCOPE_FILLERS = """be am do does did have been being able to any only even ever yet just always
quite very really so too much more him her me us them one"""
_NOT_A_HEAD = STOP_WORDS | frozenset(_SCOPE_FILLERS.split())
_BOUNDARIES = frozenset(
    [
        ",",
        ";",
        "-",
        "\u2013",
        "\u2014",
        ":",
        ".",
        "!",
        "?",
        "(",
        ")",
        "but",
        "although",
        "though",
        "while",
        "whereas",
        "because",
        "when",
        "until",
        "after",
        "before",
        "since",
        "if",
        "that",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "so",
        "yet",
    ]
)
_SUFFIXES = ("ing", "ed", "es", "s", "er", "est", "ly", "d")
# Irregular forms of the verbs and adjectives of common antonym pairs.
_IRREGULAR = {
    "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "won": "win",
    "lost": "lose", "bought": "buy", "sold": "sell", "gave": "give", "given": "give",
    "took": "take", "taken": "take", "came": "come", "went": "go", "gone": "go",
    "began": "begin", "begun": "begin", "found": "find", "forgot": "forget",
    "forgotten": "forget", "taught": "teach", "left": "leave", "sent": "send", "spent": "spend",
    "lent": "lend", "built": "build", "broke": "break", "broken": "break", "grew": "grow",
    "grown": "grow", "shrank": "shrink", "shrunk": "shrink", "sank": "sink", "sunk": "sink",
    "froze": "freeze", "frozen": "freeze", "woke": "wake", "slept": "sleep", "stood": "stand",
    "sat": "sit", "led": "lead", "held": "hold", "kept": "keep", "brought": "bring",
    "better": "good", "best": "good", "worse": "bad", "worst": "bad", "died": "die",
    "hid": "hide", "hidden": "hide",
}  # fmt: skip


def tokens(text: str) -> list[str]:
    """Case-folded words and punctuation marks, contractions kept whole ("isn't")."""
    return [t.replace(_APOSTROPHE, "'") for t in _TOKEN.findall(text.casefold())]


def _is_cue(words: list[str], i: int) -> bool:
    """Whether the word at `i` negates ("not", "isn't"), and is no part of a compound
    ("not-for-profit", "non-sectarian")."""
    word = words[i]
    compound = i + 1 < len(words) and words[i + 1] == "-"
    return (word in _CUES or word.endswith("n't")) and not compound


class Negation(NamedTuple):
    """A negation cue's scope and the word it denies."""

    head: int | None
    """The position of the scope's first content word (None when it has none)."""
    scope: frozenset[int]
    """The positions of the words after the cue, up to the end of its clause."""


def _alternative(words: list[str], i: int) -> bool:
    """Whether the word at `i` is the "not" of "whether or not": it states an alternative and
    denies nothing."""
    return words[i] == "not" and words[max(0, i - 2) : i] == ["whether", "or"]


def negations(words: list[str]) -> list[Negation]:
    """The negations of `words`, each with its scope and head."""
    found = []
    for i in range(len(words)):
        if not _is_cue(words, i) or _alternative(words, i):
            continue
        scope = []
        for j in range(i + 1, min(len(words), i + 1 + _SCOPE)):
            if words[j] in _BOUNDARIES:
                break
            scope.append(j)
        head = next(
            (j for j in scope if words[j][:1].isalnum() and words[j] not in _NOT_A_HEAD), None
        )
        found.append(Negation(head, frozenset(scope)))
    return found


def negated(words: list[str]) -> set[int]:
    """The positions of `words` inside a negation's scope."""
    return {j for negation in negations(words) for j in negation.scope}


def _denied(words: list[str], other: set[str]) -> set[int]:
    """The positions of `words` inside a negation whose head the other text states, in some
    form or by an antonym ("not safe" against "dangerous": the opposite word then agrees with
    the negation, and the two cancel); `other` holds the forms of that text's words (see
    `lemmas`)."""
    inside: set[int] = set()
    for negation in negations(words):
        if negation.head is None:
            continue
        forms = lemmas(words[negation.head])
        if (forms | _opposites(forms)) & other:
            inside |= negation.scope
    return inside


def _negated_words(text: str) -> tuple[list[str], set[int]]:
    """The text's words and the positions of those inside a negation's scope; Korean text is
    read by its morphemes and clauses (see `korean.negated`)."""
    if korean.has_hangul(text):
        return korean.negated(text)
    words = tokens(text)
    return words, negated(words)


@lru_cache(maxsize=65536)
def lemmas(word: str) -> frozenset[str]:
    """The word and the base forms it may be an inflection of (over-generated on purpose:
    only forms found in the other text or in the antonym table matter)."""
    found = {word, _IRREGULAR.get(word, word)}
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            stem = word[: -len(suffix)]
            found |= {stem, stem + "e"}
            if len(stem) > 2 and stem[-1] == stem[-2]:
                found.add(stem[:-1])  # dropped -> drop
            if stem.endswith("i"):
                found.add(stem[:-1] + "y")  # earlier -> early
    return frozenset(found)


def _forms(words: Iterable[str]) -> set[str]:
    """The words and every base form they may be inflections of."""
    return {form for word in words for form in lemmas(word)}


@cache
def antonyms() -> dict[str, frozenset[str]]:
    """Each word of the packaged antonym table (one pair per line), with its antonyms."""
    return related_words("antonyms.txt")


def _opposites(forms: frozenset[str]) -> set[str]:
    """The antonyms of a word's forms, but words that are no opposites (`_NOT_OPPOSITES`)."""
    table = antonyms()
    return {o for form in forms for o in table.get(form, ())} - _NOT_OPPOSITES


def polarity_mismatch(claim: str, sentences: Sequence[str], content: set[str]) -> int | None:
    """The index of the sentence whose polarity disagrees with the claim's, None if none does.

    `sentences` are the best evidence sentences, best first; `content` holds the words that
    count (the claim's content words, case folded). A negated claim disagrees with the best
    sentence when none of them negates a word it shares with the claim; an affirmed claim
    disagrees with the first sentence that does. A negation counts only where the other side
    states its head (the sentences for the claim's, the claim for a sentence's); Korean text is
    read by its morphemes and clauses, every negation counting (see `korean.negated`)."""
    texts = [claim, *sentences]
    if any(korean.has_hangul(text) for text in texts):
        read = [_negated_words(text) for text in texts]
    else:
        words = [tokens(text) for text in texts]
        forms = [_forms(w) for w in words]
        read = [(words[0], _denied(words[0], set().union(*forms[1:])))]
        read += [(w, _denied(w, forms[0])) for w in words[1:]]
    (claim_words, claim_negated), *sentence_reads = read
    negating: list[bool] = []
    shared_any: set[str] = set()
    for sentence_words, inside in sentence_reads:
        shared = set(claim_words) & set(sentence_words) & content
        shared_any |= shared
        negating.append(any(sentence_words[i] in shared for i in inside))
    if not shared_any:
        return None
    if any(claim_words[i] in shared_any for i in claim_negated):
        if korean.has_hangul(claim):  # Korean: the sentence that best matches decides
            return None if negating[0] else 0
        return None if any(negating) else 0
    return negating.index(True) if any(negating) else None


def _common_words(text: str) -> set[str]:
    """The text's words written in lower case (names left out), contractions kept whole."""
    return {t.replace(_APOSTROPHE, "'") for t in _TOKEN.findall(text) if t.islower()}


# Words with antonyms in the lexicon that name no state a text could hold the other way round.
# Ordinals name places in a series, of which a text names several ("first leg", "second leg");
# prepositions, particles and quantifiers are closed-class words, not predicates ("off the
# coast", "on board", "some of them"); nouns for people by sex or kin name two people, not two
# states ("her mother", "her father").
_UNOPPOSED = """first second last former latter on off in out up down all some no few many none
father mother husband wife son daughter brother sister aunt uncle nephew niece king queen lord lady
man woman boy girl"""
_NOT_OPPOSITES = frozenset(_UNOPPOSED.split())
_HYPHEN = "[-\u2010\u2011]"
_COMPOUND = re.compile(rf"\w+(?:{_HYPHEN}\w+)+")


def _bound_words(text: str) -> set[str]:
    """The words of the text's hyphenated compounds, case folded ("27-year-old": "27", "year",
    "old"): parts of another word, not predicates of their own."""
    return {w for m in _COMPOUND.finditer(text.casefold()) for w in re.split(_HYPHEN, m[0])}


def opposite(claim: str, sentence: str, content: set[str]) -> bool:
    """Whether a free content word of the claim is missing from the sentence while one of its
    antonyms is there, free too (and missing from the claim)."""
    # Capitalised words are names ("New Hampshire"), not opposites of "old".
    claim_words, sentence_words = _common_words(claim), _common_words(sentence)
    claim_free = claim_words - _bound_words(claim) - _NOT_OPPOSITES
    sentence_free = sentence_words - _bound_words(sentence) - _NOT_OPPOSITES
    claim_lemmas = _forms(claim_words)
    sentence_lemmas = _forms(sentence_words - claim_words)
    for word in (claim_free & content) - sentence_words:
        forms = lemmas(word)
        if forms & sentence_lemmas:
            continue  # the sentence holds the word in another form
        opposites = _opposites(forms)
        for other in sentence_free - claim_words:
            other_forms = lemmas(other)
            if other_forms & opposites and not other_forms & claim_lemmas:
                return True
    return False
