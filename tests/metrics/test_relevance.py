"""Context relevance: the reference's score on every mix of levels, its penalties and scale, the
empty context, the construction errors, and the graded verdict per chunk."""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Mapping

import pytest

from offline_recall import ConfigurationError, FakeEngine, create_context_relevance_scorer
from offline_recall.judging.profile import threshold_profile
from offline_recall.metrics.relevance import (
    ID,
    ContextRelevanceOptions,
    ContextRelevanceScorer,
    Level,
    Penalties,
    RelevanceResult,
    relevance_score,
)
from offline_recall.metrics.relevance.score import level_of, levels_of, missing_context, was_used
from offline_recall.scorer.registry import SCORERS

LEVELS = list(Level)
REFERENCE_WEIGHTS = {"high": 1.0, "medium": 0.7, "low": 0.3, "none": 0.0}


def reference(
    levels: list[str],
    used: list[bool],
    missing: int,
    scale: float,
    unused_rate: float = 0.1,
    missing_rate: float = 0.15,
    max_missing: float = 0.5,
) -> float:
    """The reference's generateScore, transcribed: weights summed in order, the penalties, the
    clamp at 0, the scale and JavaScript's rounding to two decimals."""
    total = 0.0
    for level in levels:
        total += REFERENCE_WEIGHTS[level]
    relevance = total / (len(levels) * 1.0)
    unused = len([1 for lv, u in zip(levels, used, strict=True) if lv == "high" and not u])
    final = max(0.0, relevance - unused * unused_rate - min(missing * missing_rate, max_missing))
    return math.floor((final * scale + sys.float_info.epsilon) * 100 + 0.5) / 100


def _cases() -> list[tuple[tuple[Level, ...], tuple[bool, ...]]]:
    cases = []
    for n in (1, 2, 3):
        for levels in itertools.product(LEVELS, repeat=n):
            for used in itertools.product((True, False), repeat=n):
                cases.append((levels, used))
    return cases


@pytest.mark.parametrize("scale", [1.0, 2.0, 10.0, 0.37])
@pytest.mark.parametrize("missing", [0, 1, 3, 4])
def test_the_score_is_the_reference_formula_on_every_mix_of_levels(
    scale: float, missing: int
) -> None:
    for levels, used in _cases():
        unused = sum(1 for lv, u in zip(levels, used, strict=True) if lv is Level.HIGH and not u)
        ours = relevance_score(levels, unused, missing, Penalties(), scale)
        theirs = reference([lv.value for lv in levels], list(used), missing, scale)
        assert ours == theirs, (levels, used, missing, scale)


@pytest.mark.parametrize(
    "penalties",
    [
        Penalties(),
        Penalties(unused_high_relevance_context=0.2),
        Penalties(missing_context_per_item=0.1, max_missing_context_penalty=0.4),
        Penalties(
            unused_high_relevance_context=0.0,
            missing_context_per_item=0.5,
            max_missing_context_penalty=1.0,
        ),
    ],
)
def test_the_penalties_are_configurable(penalties: Penalties) -> None:
    for (levels, used), missing in itertools.product(_cases(), range(5)):
        unused = sum(1 for lv, u in zip(levels, used, strict=True) if lv is Level.HIGH and not u)
        theirs = reference(
            [lv.value for lv in levels],
            list(used),
            missing,
            1.0,
            penalties.unused_high_relevance_context,
            penalties.missing_context_per_item,
            penalties.max_missing_context_penalty,
        )
        assert relevance_score(levels, unused, missing, penalties, 1.0) == theirs


def test_known_values() -> None:
    high, medium, low, none = LEVELS
    assert relevance_score([high, medium, low, none], 0, 0, Penalties(), 1.0) == 0.5
    assert relevance_score([high, high], 1, 0, Penalties(), 1.0) == 0.9
    assert relevance_score([medium], 0, 5, Penalties(), 1.0) == 0.2  # missing bounded at 0.5
    assert relevance_score([low], 1, 3, Penalties(), 1.0) == 0.0  # clamped at 0
    assert relevance_score([], 0, 0, Penalties(), 3.0) == 3.0  # no chunk: the full scale


def _scorer(
    options: ContextRelevanceOptions | None = None,
    p_yes: Mapping[tuple[str, ...], float] | None = None,
) -> tuple[FakeEngine, ContextRelevanceScorer]:
    engine = FakeEngine(p_yes=p_yes)
    return engine, create_context_relevance_scorer(
        engine,
        options or ContextRelevanceOptions(context=["unused"]),
        profile=threshold_profile(0.5, scorer=ID, fingerprint=engine.identity.fingerprint),
    )


def test_construction_fails_as_recall_does() -> None:
    with pytest.raises(ConfigurationError, match="context relevance needs `context`"):
        create_context_relevance_scorer(FakeEngine())
    with pytest.raises(ConfigurationError, match="`context` is an empty list"):
        ContextRelevanceOptions(context=[])
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        Penalties(missing_context_per_item=-1)


@pytest.mark.filterwarnings("ignore::offline_recall.scorer.inputs.ContextWarning")
@pytest.mark.parametrize(("scale", "expected"), [(1, 1.0), (2, 2.0), (0, 1.0), (None, 1.0)])
def test_no_context_gives_the_full_scale_without_a_model_call(
    scale: float | None, expected: float
) -> None:
    options = ContextRelevanceOptions(context_extractor=lambda i, o: [], scale=scale)
    engine, scorer = _scorer(options)
    for run in ({"input": "q", "output": "a"}, {"input": "q", "context": ["", "  "]}):
        result = scorer.run(run)
        assert isinstance(result, RelevanceResult)
        assert (result.score, result.status) == (expected, "no_context")
    assert engine.answer_calls == []


def test_each_chunk_gets_a_level_its_probabilities_and_its_use() -> None:
    question, output = "Where is the Eiffel Tower?", "The Eiffel Tower is in Paris."
    chunks = ["The Eiffel Tower stands in Paris, France.", "Paris hosts museums.", "Cats purr.", ""]
    target = f"{question}\n{output}"
    # The fake's first answer (high) gets the scripted probability, the others share the rest.
    p_high: dict[tuple[str, ...], float] = {
        (chunks[0], target): 1.0,
        (chunks[1], target): 0.5,
        (chunks[2], target): 0.1,
    }
    engine, scorer = _scorer(ContextRelevanceOptions(context=chunks), p_yes=p_high)
    result = scorer.run({"input": question, "output": output})
    assert isinstance(result, RelevanceResult)
    assert [v.level for v in result.verdicts] == [Level.HIGH, Level.MEDIUM, Level.LOW, Level.NONE]
    assert [v.used for v in result.verdicts] == [True, False, False, False]
    for v in result.verdicts:
        shares = v.levels.model_dump().values()
        assert abs(sum(shares) - 1.0) < 1e-5
    assert result.missing_context == ()
    assert result.score == reference(["high", "medium", "low", "none"], [True] + [False] * 3, 0, 1)
    assert result.reason.startswith(f"The score is {result.score:g} because of 4 retrieved chunks")
    assert [j.positive for j in result.judgments()] == [True, True, False, False]
    asked = engine.answer_calls
    assert len(asked) == 1 and len(asked[0]) == 3  # the blank chunk is not asked


def test_unused_high_chunks_and_missing_context_are_penalised() -> None:
    chunks = ["Water boils at 100 degrees Celsius.", "Ice melts at zero degrees."]
    output = "Mercury is a liquid metal. Gold is dense."
    question = "Tell me about chemistry."
    target = f"{question}\n{output}"
    penalties = Penalties(unused_high_relevance_context=0.2)
    options = ContextRelevanceOptions(context=chunks, penalties=penalties)
    _, scorer = _scorer(options, p_yes={(c, target): 1.0 for c in chunks})
    result = scorer.run({"input": question, "output": output})
    assert [v.level for v in result.verdicts] == [Level.HIGH, Level.HIGH]
    assert [v.used for v in result.verdicts] == [False, False]
    assert result.missing_context == ("Mercury is a liquid metal.", "Gold is dense.")
    expected = reference(["high", "high"], [False, False], 2, 1, 0.2)
    assert result.score == expected == 0.3
    assert "not used in the response: chunk 0, 1 (-0.2 each)" in result.reason
    assert '"Mercury is a liquid metal."; "Gold is dense."' in result.reason


def test_levels_split_the_probability_around_the_threshold() -> None:
    for p in [i / 100 for i in range(101)]:
        level = level_of(p, 0.4, 2.0)
        assert (level in (Level.HIGH, Level.MEDIUM)) == (p >= 0.4)
        shares = levels_of(p, 0.4, 2.0)
        assert abs(sum(shares.model_dump().values()) - 1.0) < 1e-5
    assert level_of(0.99, 0.5, 2.0) is Level.HIGH and level_of(0.01, 0.5, 2.0) is Level.NONE


def test_use_and_missing_context_are_lexical_rules() -> None:
    assert was_used("Paris is big. The tower is tall.", "The tower is very tall.", 0.5)
    assert not was_used("Paris is big.", None, 0.5)
    assert missing_context(["Paris is in France."], "Paris is in France. Rome is old.", 0.5) == [
        "Rome is old."
    ]
    assert missing_context(["x"], None, 0.5) == []


def test_it_is_registered_under_the_reference_id() -> None:
    kind = SCORERS["context-relevance-scorer"]
    assert kind.levels == ("high", "medium", "low", "none")
    assert kind.reads == ("question", "output", "context")


@pytest.mark.model
def test_it_runs_on_the_embedded_model() -> None:
    """The shipped profile on the real model: a gold passage outranks an unrelated one."""
    scorer = create_context_relevance_scorer(
        options=ContextRelevanceOptions(
            context=[
                "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
                "Photosynthesis turns light into chemical energy in plants.",
            ]
        )
    )
    result = scorer.run(
        {"input": "Where is the Eiffel Tower?", "output": "The Eiffel Tower is in Paris, France."}
    )
    assert result.status == "ok" and result.score is not None
    gold, other = result.verdicts
    assert gold.probability > other.probability
    assert gold.used and not other.used
    assert scorer.setup.judge_profile.scorer == ID
