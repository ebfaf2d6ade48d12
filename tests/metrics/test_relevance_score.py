"""Context relevance's arithmetic on its own: levels from a probability, the lexical rules of
use and missing context, and the reason (no engine)."""

from __future__ import annotations

import math

import pytest

from offline_recall.metrics.relevance.options import Penalties
from offline_recall.metrics.relevance.result import ChunkRelevance, Level, LevelProbabilities
from offline_recall.metrics.relevance.score import (
    explain,
    level_of,
    levels_of,
    missing_context,
    was_used,
)


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def test_levels_split_the_probability_around_the_threshold() -> None:
    """At the threshold itself the split is symmetric, whatever the threshold is."""
    levels = levels_of(0.3, 0.3, 1.0)
    edge = sigmoid(-1.0)
    assert (levels.high, levels.medium, levels.low, levels.none) == pytest.approx(
        (edge, 0.5 - edge, 0.5 - edge, edge), abs=1e-6
    )
    far = levels_of(0.9, 0.3, 1.0)
    z = logit(0.9) - logit(0.3)
    assert far.high == pytest.approx(sigmoid(z - 1.0), abs=1e-6)
    assert far.none == pytest.approx(1.0 - sigmoid(z + 1.0), abs=1e-6)
    for found in (levels, far, levels_of(1e-9, 0.3, 1.0), levels_of(1.0, 0.3, 1.0)):
        total = found.high + found.medium + found.low + found.none
        assert total == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    ("probability", "threshold", "level"),
    [
        (0.6, 0.3, Level.HIGH),  # z = logit(0.6) - logit(0.3) = 1.25 >= 1
        (0.35, 0.3, Level.MEDIUM),
        (0.25, 0.3, Level.LOW),
        (0.05, 0.3, Level.NONE),
    ],
)
def test_the_level_is_read_against_the_threshold(
    probability: float, threshold: float, level: Level
) -> None:
    assert level_of(probability, threshold, 1.0) is level


def test_a_level_boundary_belongs_to_the_level_above() -> None:
    """Even odds or better: a probability exactly a spread from the threshold is in the upper
    level."""
    assert level_of(0.8, 0.5, logit(0.8)) is Level.HIGH
    assert level_of(0.2, 0.5, -logit(0.2)) is Level.LOW


def test_a_chunk_is_used_when_a_sentence_has_the_share_of_its_words_in_the_response() -> None:
    chunk = "Paris has the Louvre. Rome has the Colosseum and a museum."
    assert was_used(chunk, "Paris has a big museum.", 0.5)  # paris of paris, louvre: 1/2
    assert not was_used(chunk, "Paris has a big museum.", 0.6)
    assert not was_used(chunk, None, 0.5)
    assert not was_used("It is.", "It is.", 0.5)  # no content word to reflect


def test_missing_context_is_what_no_chunk_holds() -> None:
    chunks = ["Paris is in France", "Rome is in Italy"]  # no full stop: the chunks' seam
    response = "France borders Rome. Paris is old. Berlin is big. The end."
    # "France borders Rome": 2 of 3 words found; "Paris is old": 1 of 2, at the share;
    # "Berlin is big": none; "The end": 0 of 1.
    assert missing_context(chunks, response, 0.5) == ["Berlin is big.", "The end."]
    assert missing_context(chunks, response, 0.6) == [
        "Paris is old.",
        "Berlin is big.",
        "The end.",
    ]
    assert missing_context(chunks, None, 0.5) == []


def verdict(index: int, level: Level, used: bool) -> ChunkRelevance:
    levels = LevelProbabilities(high=0.25, medium=0.25, low=0.25, none=0.25)
    return ChunkRelevance(chunk_index=index, level=level, used=used, probability=0.5, levels=levels)


def test_the_reason_names_the_levels_and_each_penalty() -> None:
    verdicts = [
        verdict(0, Level.HIGH, False),
        verdict(1, Level.LOW, True),
        verdict(2, Level.HIGH, True),
        verdict(3, Level.HIGH, False),
    ]
    reason = explain(verdicts, ["Berlin is big."], 0.42, Penalties())
    assert reason == (
        "The score is 0.42 because of 4 retrieved chunks, by relevance: 3 high (chunk 0, 2, 3), "
        "1 low (chunk 1). Highly relevant but not used in the response: chunk 0, 3 (-0.1 each). "
        'Stated in the response but in no chunk: "Berlin is big." (-0.15 each, at most -0.5).'
    )


@pytest.mark.parametrize(
    "penalties",
    [
        Penalties(unused_high_relevance_context=0.0, missing_context_per_item=0.0),
        Penalties(unused_high_relevance_context=0.0, max_missing_context_penalty=0.0),
    ],
)
def test_a_penalty_of_zero_is_not_mentioned(penalties: Penalties) -> None:
    verdicts = [verdict(0, Level.HIGH, False), verdict(1, Level.MEDIUM, True)]
    reason = explain(verdicts, ["Berlin is big."], 0.85, penalties)
    assert reason == (
        "The score is 0.85 because of 2 retrieved chunks, by relevance: 1 high (chunk 0), "
        "1 medium (chunk 1)."
    )


def test_no_penalty_to_name_when_every_high_chunk_is_used_and_nothing_is_missing() -> None:
    verdicts = [verdict(0, Level.HIGH, True), verdict(1, Level.NONE, False)]
    assert explain(verdicts, [], 0.5, Penalties()) == (
        "The score is 0.5 because of 2 retrieved chunks, by relevance: 1 high (chunk 0), "
        "1 none (chunk 1)."
    )
