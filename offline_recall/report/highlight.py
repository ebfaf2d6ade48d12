"""A context chunk with a claim's words marked, as HTML."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markupsafe import Markup, escape

from ..text import split_sentences

_TOKENS = re.compile(r"(\w+)")

STOPWORDS = frozenset(
    {
        *("a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "did", "do", "does"),
        *("for", "from", "had", "has", "have", "he", "her", "his", "i", "in", "is", "it", "its"),
        *("of", "on", "or", "our", "she", "so", "than", "that", "the", "their", "them", "then"),
        *("there", "these", "they", "this", "those", "to", "was", "we", "were", "what", "when"),
        *("where", "which", "who", "will", "with", "you", "your"),
    }
)
"""Words too common to show why a chunk supports a claim."""


def content_words(text: str) -> set[str]:
    """The claim's words that carry meaning, case-folded."""
    return {w.casefold() for w in _TOKENS.findall(text)} - STOPWORDS


def highlight(text: str, claim: str) -> Markup:
    """`text` escaped for HTML, with runs of the claim's content words wrapped in `<mark>`."""
    words = content_words(claim)
    parts = _TOKENS.split(text)
    # split() alternates: non-word, word, non-word, ...; a gap of spaces between two marked
    # words is marked with them, so a phrase reads as one highlight.
    marked = [i % 2 == 1 and parts[i].casefold() in words for i in range(len(parts))]
    for i in range(2, len(parts) - 1, 2):
        if marked[i - 1] and marked[i + 1] and parts[i].isspace():
            marked[i] = True
    # Each run of parts inside or outside a mark is escaped at once (a long run's report
    # highlights millions of words).
    out: list[str] = []
    run: list[str] = []
    open_mark = False
    for part, mark in zip(parts, marked, strict=True):
        if not part:
            continue
        if mark != open_mark:
            out.append(str(escape("".join(run))))
            run = []
            out.append("<mark>" if mark else "</mark>")
            open_mark = mark
        run.append(part)
    out.append(str(escape("".join(run))))
    if open_mark:
        out.append("</mark>")
    return Markup("".join(out))


_PIECES = re.compile(r"\d+|[^\W\d_]+")
_HANGUL = re.compile("[\uac00-\ud7a3]+")


def _pieces(text: str) -> set[str]:
    """A text's content words, cut where digits meet letters ("1443년에": "1443", "년에")."""
    return {p for word in content_words(text) for p in _PIECES.findall(word)}


def _bigrams(word: str) -> set[str]:
    return {word[i : i + 2] for i in range(len(word) - 1)} or {word}


def _shared(piece: str, words: set[str], grams: set[str]) -> float:
    """How much of a claim's piece a chunk holds: a Korean word by its character pairs (its
    particle and ending vary: 창제되었다, 창제했다), any other word whole."""
    if _HANGUL.fullmatch(piece) and len(piece) > 1:
        own = _bigrams(piece)
        return len(own & grams) / len(own)
    return float(piece in words)


def closest_chunk(context: Sequence[str], claim: str) -> int | None:
    """The index of the chunk that shares the most of the claim's content words; None if
    none shares any. A number counts double (a missed claim's number is most often the fact
    no chunk gave), and a Korean word counts by the share of its character pairs the chunk
    holds, so a name bearing the same particle does not outweigh the chunk with the year."""
    pieces = _pieces(claim)
    scores = []
    for chunk in context:
        words = _pieces(chunk)
        grams = {g for w in words if _HANGUL.fullmatch(w) for g in _bigrams(w)}
        scores.append(sum((2.0 if p.isdigit() else 1.0) * _shared(p, words, grams) for p in pieces))
    best = max(range(len(scores)), key=lambda i: scores[i], default=None)
    return best if best is not None and scores[best] > 0 else None


EXCERPT = 360
"""Characters of a chunk shown beside a claim; a longer chunk is cut to its best sentences."""


def excerpt(text: str, claim: str, limit: int = EXCERPT) -> str:
    """The sentences of `text` around the one sharing most of the claim's words, within `limit`.

    Cut ends are shown with an ellipsis; text within the limit, or a single sentence, is whole.
    """
    sentences = split_sentences(text)
    if len(text) <= limit or len(sentences) <= 1:
        return text
    words = content_words(claim)
    overlaps = [len(words & content_words(s)) for s in sentences]
    best = overlaps.index(max(overlaps))
    lo = hi = best
    used = len(sentences[best])
    while True:
        grown = False
        for side in (hi + 1, lo - 1):
            if 0 <= side < len(sentences) and used + 1 + len(sentences[side]) <= limit:
                used += 1 + len(sentences[side])
                lo, hi = min(lo, side), max(hi, side)
                grown = True
        if not grown:
            break
    before = "… " if lo > 0 else ""
    after = " …" if hi < len(sentences) - 1 else ""
    return before + " ".join(sentences[lo : hi + 1]) + after


def highlight_excerpt(text: str, claim: str, limit: int = EXCERPT) -> Markup:
    """The excerpt of `text` for `claim`, with the claim's words marked."""
    return highlight(excerpt(text, claim, limit), claim)
