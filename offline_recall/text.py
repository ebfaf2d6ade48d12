"""Text in pieces: sentences, and pieces cut at sentence boundaries to fit a token budget."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

CountTokens = Callable[[str], int]

# A sentence ends at . ! ? (or their CJK forms) followed by whitespace, or at a line break;
# in Korean also where a final ending's full stop runs into the next sentence ("했다.그는").
_SENTENCE_END = re.compile(
    r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n+|(?<=[\uac00-\ud7a3][.!?])(?=[\uac00-\ud7a3])"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _greedy(
    units: Iterable[str],
    budget: int,
    count_tokens: CountTokens,
    split_unit: Callable[[str], list[str]],
) -> list[str]:
    """Join consecutive units with spaces while they fit; a unit too big alone is split further."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit in units:
        cost = count_tokens(unit) + 1  # +1: a join can cost a token at the seam
        if current and used + cost > budget:
            pieces.append(" ".join(current))
            current, used = [], 0
        if cost > budget:
            pieces.extend(split_unit(unit))
            continue
        current.append(unit)
        used += cost
    if current:
        pieces.append(" ".join(current))
    return pieces


def _cut_characters(word: str, budget: int, count_tokens: CountTokens) -> list[str]:
    """Cut a word with no spaces by characters, sized from its own characters per token."""
    per_token = max(1, len(word) // max(1, count_tokens(word)))
    step = max(1, per_token * budget // 2)
    return [word[i : i + step] for i in range(0, len(word), step)]


def pack(text: str, budget: int, count_tokens: CountTokens) -> list[str]:
    """Pieces of `text`, each within `budget` tokens, cut between sentences where possible.

    Text that already fits is returned whole and unchanged. A sentence too long alone is cut
    between words, and a word too long alone between characters.
    """
    if budget < 2:
        raise ValueError(f"token budget must be at least 2, got {budget}")
    if count_tokens(text) <= budget:
        return [text]

    def split_words(sentence: str) -> list[str]:
        return _greedy(
            sentence.split(" "),
            budget,
            count_tokens,
            lambda word: _cut_characters(word, budget, count_tokens),
        )

    return _greedy(split_sentences(text), budget, count_tokens, split_words)
