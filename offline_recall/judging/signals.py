"""Cheap text signals of whether a context supports a claim, and evidence selection.

Word overlap is a strong baseline for attribution: a claim whose words, rare ones above all,
are missing from the context is rarely supported. These signals feed the judge's decision
rule beside the model's own P(yes) (see `profile.py`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import lru_cache
from itertools import pairwise

from ..text import split_sentences
from . import korean
from .korean import has_hangul
from .lexicon import STOP_WORDS as STOP_WORDS  # function words, read here by the scorers too
from .lexicon import stem
from .paraphrase import synonym_share
from .polarity import opposite, polarity_mismatch
from .quantities import QuantitySignals, quantity_signals

# The signals a decision rule may use, besides "model" (the logit of the model's P(yes)).
LEXICAL_SIGNALS = (
    "overlap",
    "weighted_overlap",
    "evidence_overlap_1",
    "evidence_overlap_2",
    "evidence_overlap_3",
    "rarest_missing",
    "missing",
    "numbers",
    "bigrams",
    "length",
    "names",
    "polarity",
    "opposite",
    "quantity_mismatch",
    "synonyms",
)
_WORD = re.compile(r"\w+")
# "1,000" and "1000" are the same number.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")


def _tokens(text: str) -> list[str]:
    if has_hangul(text):  # Korean is read as morphemes, particles and endings apart
        return [stem(w) for w in korean.words(text)]
    return [stem(w) for w in _WORD.findall(_THOUSANDS.sub("", text.casefold()))]


def _content(text: str) -> list[str]:
    if has_hangul(text):
        return [stem(w) for w in korean.content_words(text)]
    return [w for w in _tokens(text) if w not in STOP_WORDS]


def _plain_content(text: str) -> list[str]:
    """The text's content words as written (case folded, not stemmed)."""
    if has_hangul(text):
        return korean.content_words(text)
    return [w for w in _WORD.findall(text.casefold()) if w not in STOP_WORDS]


def _names(text: str) -> set[str]:
    """The text's capitalised words after its first (names, mostly), case folded; in Korean,
    its proper nouns."""
    if has_hangul(text):
        return korean.names(text)
    words = _WORD.findall(text)
    return {w.casefold() for w in words[1:] if w[:1].isupper() and w.casefold() not in STOP_WORDS}


@lru_cache(maxsize=65536)
def rarity(word: str) -> float:
    """How unusual an English word is: 8 minus its Zipf frequency, at least 0.5.

    Missing rare words (names, numbers, technical terms) say more than missing common ones.
    A Korean morpheme is weighed by its Korean frequency, on the same scale.
    """
    if has_hangul(word):
        return max(0.5, 8.0 - _korean_zipf(word))
    from wordfreq import zipf_frequency  # its word lists load when a rule first weighs a word

    return max(0.5, 8.0 - zipf_frequency(word, "en"))


@lru_cache(maxsize=1)
def _korean_frequencies() -> dict[str, float]:
    # The list itself, not `zipf_frequency(word, "ko")`: that tokenises its argument again with
    # a MeCab binding of its own, and the words here are already morphemes.
    from wordfreq import get_frequency_dict

    return get_frequency_dict("ko")


def _korean_zipf(word: str) -> float:
    frequency = _korean_frequencies().get(word, 0.0)
    return math.log10(frequency * 1e9) if frequency > 0 else 0.0


def word_overlap(context: str, claim: str) -> float:
    """The share of the claim's content words found in the context: the baseline judge.

    Plain lower-cased words without stemming or weights, so that it stays the simple
    reference point every judge is compared with.
    """
    return share_found(words_of(context), claim)


def words_of(text: str) -> set[str]:
    """The lower-cased words of `text`, as `word_overlap` sees them."""
    return set(_WORD.findall(text.casefold()))


def share_found(found: set[str], claim: str) -> float:
    """The share of the claim's content words that are in `found` (see `word_overlap`)."""
    words = {w for w in _WORD.findall(claim.casefold()) if w not in STOP_WORDS}
    if not words:
        return 0.0
    return len(words & found) / len(words)


def _ranked_sentences(context: str, claim_words: set[str]) -> list[tuple[int, set[str]]]:
    """Context sentences (index, words), the ones holding most of the claim's weight first."""
    sentences = [set(_tokens(s)) for s in split_sentences(context)]
    weight = [math.fsum(rarity(w) for w in claim_words & s) for s in sentences]
    order = sorted(range(len(sentences)), key=lambda i: (-weight[i], i))
    return [(i, sentences[i]) for i in order]


def evidence(context: str, claim: str, sentences: int = 3) -> str:
    """The context's `sentences` sentences most related to the claim, in their original order;
    a context of no more sentences is itself, as written (so a model asked about a short chunk
    reads the same text whether or not a rule limits its evidence)."""
    parts = split_sentences(context)
    if len(parts) <= sentences:
        return context
    ranked = _ranked_sentences(context, set(_content(claim)))
    keep = sorted(i for i, _ in ranked[:sentences])
    return "\n".join(parts[i] for i in keep)


def lexical_signals(context: str, claim: str) -> dict[str, float]:
    """The lexical signals named in `LEXICAL_SIGNALS` for one (context, claim) pair."""
    words = set(_content(claim))
    ranked = _ranked_sentences(context, words)
    quantities = _quantities(context, claim, words)
    # A quantity the context states in other words counts as found ("°C" for "degrees Celsius").
    found = set(_tokens(context)) | set(_tokens(" ".join(quantities.words)))
    total = math.fsum(rarity(w) for w in words) or 1.0
    missing = [w for w in words if w not in found]
    signals = {
        "overlap": (len(words) - len(missing)) / len(words) if words else 0.0,
        "weighted_overlap": math.fsum(rarity(w) for w in words if w in found) / total,
        "rarest_missing": max((rarity(w) for w in missing), default=0.0),
        "missing": float(len(missing)),
        "length": math.log(max(1, len(words))),
    }
    for k in (1, 2, 3):
        near: set[str] = set().union(*(s for _, s in ranked[:k]))
        signals[f"evidence_overlap_{k}"] = math.fsum(rarity(w) for w in words & near) / total
    numbers = [w for w in words if w.isdigit()]
    signals["numbers"] = sum(w in found for w in numbers) / len(numbers) if numbers else 1.0
    claim_words = _content(claim)
    context_words = _content(context)
    bigrams = set(pairwise(claim_words))
    context_bigrams = set(pairwise(context_words))
    signals["bigrams"] = len(bigrams & context_bigrams) / len(bigrams) if bigrams else 1.0
    # A name the context never mentions is strong evidence against: the share found.
    names = _names(claim)
    in_context = set(_tokens(context)) if has_hangul(context) else set()
    in_context |= {w.casefold() for w in _WORD.findall(context)}
    stated = sum(
        n in in_context or (has_hangul(n) and korean.states_name(context, n)) for n in names
    )
    signals["names"] = stated / len(names) if names else 1.0
    signals.update(_contradictions(context, claim, ranked, total))
    signals["quantity_mismatch"] = quantities.mismatch
    content = _plain_content(claim)
    signals["synonyms"] = synonym_share(content, frozenset(words_of(context)), rarity)
    return signals


def stated(claim: str, values: Mapping[str, float]) -> bool:
    """Whether a context states an English claim word for word, read from the pair's lexical
    signals: every content word of the claim in one sentence, every name and number of it in
    the context, and no negation, opposite word or quantity of the context against it. A
    Korean claim never is: its negations and roles hide in endings the signals do not read."""
    return (
        not has_hangul(claim)
        and values["evidence_overlap_1"] >= 1.0
        and values["names"] >= 1.0
        and values["numbers"] >= 1.0
        and values["polarity"] == values["opposite"] == values["quantity_mismatch"] == 0.0
    )


def _quantities(context: str, claim: str, claim_words: set[str]) -> QuantitySignals:
    """The claim's quantities against the context's, the sentences about the same thing
    ranked by the claim's words other than numbers."""
    words = {w for w in claim_words if not w.isdigit()}
    by_words = _ranked_sentences(context, words) if words else []
    near = [i for i, s in by_words[:2] if s & words]
    return quantity_signals(claim, split_sentences(context), near)


def _contradictions(
    context: str, claim: str, ranked: list[tuple[int, set[str]]], total: float
) -> dict[str, float]:
    """Signals against support, read in the two sentences that best match the claim: a
    polarity mismatch and an opposite word, each weighed by the share of the claim's weight
    the sentence holds."""
    parts = split_sentences(context)
    claim_words = set(_content(claim))
    content = set(_plain_content(claim))
    near = [(i, math.fsum(rarity(w) for w in claim_words & s) / total) for i, s in ranked[:2]]
    near = [(i, share) for i, share in near if share > 0]
    flips = polarity_mismatch(claim, [parts[i] for i, _ in near], content)
    opposed = next((k for k, (i, _) in enumerate(near) if opposite(claim, parts[i], content)), None)
    if flips is not None and flips == opposed:  # "not safe" against "dangerous" agree
        flips = opposed = None
    return {
        "polarity": near[flips][1] if flips is not None else 0.0,
        "opposite": near[opposed][1] if opposed is not None else 0.0,
    }
