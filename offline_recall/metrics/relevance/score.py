"""The score, the levels and the reason, computed in Python from the verdicts, never by the
model."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from ...judging.signals import STOP_WORDS, words_of
from ...scorer.results import round_half_up
from ...text import split_sentences
from .options import Penalties
from .result import WEIGHTS, ChunkRelevance, Level, LevelProbabilities

_EDGE = 1e-6
DECIMALS = 6


def _logit(p: float) -> float:
    p = min(1.0 - _EDGE, max(_EDGE, p))
    return math.log(p / (1.0 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def levels_of(probability: float, threshold: float, spread: float) -> LevelProbabilities:
    """Each level's probability from a chunk's probability of relevance: an ordinal split
    around the profile's threshold (see the prompt set's `[rules]`)."""
    z = _logit(probability) - _logit(threshold)
    at_least = [_sigmoid(z - spread), _sigmoid(z), _sigmoid(z + spread), 1.0]
    shares = [at_least[0], *(b - a for a, b in itertools.pairwise(at_least))]
    high, medium, low, none = (round(max(0.0, s), DECIMALS) for s in shares)
    return LevelProbabilities(high=high, medium=medium, low=low, none=none)


def level_of(probability: float, threshold: float, spread: float) -> Level:
    """The highest level that, with those above it, has even odds or better: relevant (high
    or medium) exactly when the probability reaches the threshold."""
    z = _logit(probability) - _logit(threshold)
    if probability < threshold:
        return Level.LOW if z >= -spread else Level.NONE
    return Level.HIGH if z >= spread else Level.MEDIUM


def _content(text: str) -> set[str]:
    return {w for w in words_of(text) if w not in STOP_WORDS}


def _share(words: set[str], found: set[str]) -> float:
    return len(words & found) / len(words) if words else 0.0


def was_used(chunk: str, response: str | None, share: float) -> bool:
    """Whether the response reflects the chunk: `share` of the content words of one of the
    chunk's sentences are in the response (a lexical rule)."""
    if response is None:
        return False
    found = _content(response)
    return any(
        (words := _content(s)) and _share(words, found) >= share for s in split_sentences(chunk)
    )


def missing_context(chunks: Sequence[str], response: str | None, share: float) -> list[str]:
    """The response's sentences that no chunk holds: less than `share` of their content words
    are in the context (a lexical rule; none without a response)."""
    if response is None:
        return []
    found = _content("\n".join(chunks))
    return [
        s
        for s in split_sentences(response)
        if (words := _content(s)) and _share(words, found) < share
    ]


def relevance_score(
    levels: Sequence[Level],
    unused_high: int,
    missing: int,
    penalties: Penalties,
    scale: float,
) -> float:
    """The reference's score: max(0, mean level weight - unused high-relevance penalty -
    bounded missing-context penalty) times scale, rounded half-up to 2 decimals; the full
    scale when there is no chunk."""
    if not levels:
        return 1.0 * scale
    total = 0.0
    for level in levels:  # summed in order, as the reference does
        total += WEIGHTS[level]
    base = total / (len(levels) * WEIGHTS[Level.HIGH])
    usage = unused_high * penalties.unused_high_relevance_context
    lacking = min(
        missing * penalties.missing_context_per_item, penalties.max_missing_context_penalty
    )
    return round_half_up(max(0.0, base - usage - lacking) * scale)


def _chunks(verdicts: Sequence[ChunkRelevance]) -> str:
    return ", ".join(str(v.chunk_index) for v in verdicts)


def explain(
    verdicts: Sequence[ChunkRelevance], missing: Sequence[str], score: float, penalties: Penalties
) -> str:
    """A readable reason: the score, the chunks at each level, the penalties applied."""
    parts = [f"The score is {score:g} because of {len(verdicts)} retrieved chunks"]
    counts = []
    for level in Level:
        found = [v for v in verdicts if v.level is level]
        if found:
            counts.append(f"{len(found)} {level.value} (chunk {_chunks(found)})")
    parts[0] += f", by relevance: {', '.join(counts)}."
    unused = [v for v in verdicts if v.level is Level.HIGH and not v.used]
    if unused and penalties.unused_high_relevance_context:
        parts.append(
            f"Highly relevant but not used in the response: chunk {_chunks(unused)} "
            f"(-{penalties.unused_high_relevance_context:g} each)."
        )
    if missing and penalties.missing_context_per_item and penalties.max_missing_context_penalty:
        quoted = "; ".join(f'"{m}"' for m in missing)
        parts.append(
            f"Stated in the response but in no chunk: {quoted} "
            f"(-{penalties.missing_context_per_item:g} each, at most "
            f"-{penalties.max_missing_context_penalty:g})."
        )
    return " ".join(parts)


NO_CONTEXT_REASON = (
    "The score is the full scale because the run has no context chunk: the response was "
    "given without context, as the reference scores it."
)
