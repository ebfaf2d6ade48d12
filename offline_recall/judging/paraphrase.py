"""Words of a claim that the context says with a synonym ("completed" and "finished").

Word overlap misses a claim said in other words. A content word of the claim that the context
lacks, but whose WordNet synonym (a verb, adjective or adverb sharing one of its synonym sets)
stands in the context, counts here. The synonym sets are Princeton WordNet 3.0's
(`synonyms.txt`, written by `scripts/build_lexicon.py`), read from the package.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cache, lru_cache

from .lexicon import related_words
from .polarity import lemmas


@cache
def synonyms() -> dict[str, frozenset[str]]:
    """Each word of the packaged synonym sets, with the words it shares a set with."""
    return related_words("synonyms.txt")


@lru_cache(maxsize=256)
def _context_lemmas(words: frozenset[str]) -> frozenset[str]:
    return frozenset(lemma for w in words for lemma in lemmas(w))


def synonym_share(
    claim_words: Iterable[str], context_words: frozenset[str], weight: Callable[[str], float]
) -> float:
    """The share of the claim's weight in words the context lacks but says with a synonym.

    `claim_words` are the claim's content words and `context_words` the context's words, case
    folded; `weight` weighs a word (its rarity)."""
    claim = [w for w in dict.fromkeys(claim_words) if not w.isdigit()]
    total = math.fsum(weight(w) for w in claim)
    if not total:
        return 0.0
    found = _context_lemmas(context_words)
    table = synonyms()
    said = [
        w
        for w in claim
        if not lemmas(w) & found and {s for f in lemmas(w) for s in table.get(f, ())} & found
    ]
    return math.fsum(weight(w) for w in said) / total
