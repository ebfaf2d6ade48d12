"""Polarity and opposite words between a claim and the sentence that best matches it.

Word overlap cannot tell "aspirin is safe for children" from "aspirin is not safe for
children": every word of the claim is there. Two signals look at the words the claim and its
best evidence sentence share:

- polarity: one of them negates the shared words (not, no, never, n't, without, fails to, ...,
  scoped to the words after the cue up to the end of its clause) and the other does not;
- opposite: a word of the claim is absent from the sentence while its antonym is there and
  absent from the claim ("shares rose" against "shares fell"). The antonym pairs are Princeton
  WordNet 3.0's (`antonyms.txt`, written by `scripts/build_antonyms.py`), read from the package.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from . import korean
from .lexicon import related_words

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


def negated(words: list[str]) -> set[int]:
    """The positions of `words` inside a negation's scope."""
    inside: set[int] = set()
    for i in range(len(words)):
        if not _is_cue(words, i):
            continue
        for j in range(i + 1, min(len(words), i + 1 + _SCOPE)):
            if words[j] in _BOUNDARIES:
                break
            inside.add(j)
    return inside


def _negated_words(text: str) -> tuple[list[str], set[int]]:
    """The text's words and the positions of those inside a negation's scope; Korean text is
    read by its morphemes and clauses (see `korean.negated`)."""
    if korean.has_hangul(text):
        return korean.negated(text)
    words = tokens(text)
    return words, negated(words)


def lemmas(word: str) -> set[str]:
    """The word and the base forms it may be an inflection of (over-generated on purpose:
    only forms found in the antonym table matter)."""
    found = {word, _IRREGULAR.get(word, word)}
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            stem = word[: -len(suffix)]
            found |= {stem, stem + "e"}
            if len(stem) > 2 and stem[-1] == stem[-2]:
                found.add(stem[:-1])  # dropped -> drop
            if stem.endswith("i"):
                found.add(stem[:-1] + "y")  # earlier -> early
    return found


@cache
def antonyms() -> dict[str, frozenset[str]]:
    """Each word of the packaged antonym table (one pair per line), with its antonyms."""
    return related_words("antonyms.txt")


def polarity_mismatch(claim: str, sentences: Sequence[str], content: set[str]) -> int | None:
    """The index of the sentence whose polarity disagrees with the claim's, None if none does.

    `sentences` are the best evidence sentences, best first; `content` holds the words that
    count (the claim's content words, case folded). A negated claim disagrees with the best
    sentence when none of them negates a word it shares with the claim; an affirmed claim
    disagrees with the first sentence that does."""
    claim_words, claim_negated = _negated_words(claim)
    negating: list[bool] = []
    shared_any: set[str] = set()
    for sentence in sentences:
        words, inside = _negated_words(sentence)
        shared = set(claim_words) & set(words) & content
        shared_any |= shared
        negating.append(any(words[i] in shared for i in inside))
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


def opposite(claim: str, sentence: str, content: set[str]) -> bool:
    """Whether a content word of the claim is missing from the sentence while one of its
    antonyms is there (and missing from the claim)."""
    table = antonyms()
    # Capitalised words are names ("New Hampshire"), not opposites of "old".
    claim_words, sentence_words = _common_words(claim), _common_words(sentence)
    claim_lemmas = {lemma for w in claim_words for lemma in lemmas(w)}
    sentence_lemmas = {w: lemmas(w) for w in sentence_words - claim_words}
    for word in (claim_words & content) - sentence_words:
        forms = lemmas(word)
        if forms & {lemma for ls in sentence_lemmas.values() for lemma in ls}:
            continue  # the sentence holds the word in another form
        opposites = {o for form in forms for o in table.get(form, ())}
        for other_forms in sentence_lemmas.values():
            if other_forms & opposites and not other_forms & claim_lemmas:
                return True
    return False
