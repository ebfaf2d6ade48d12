"""No generation where none is needed: a sentence that is one claim already stands for itself,
and claims that carry none of their sentence's content are dropped (prompt v4)."""

from __future__ import annotations

import pytest

from offline_recall import ContextRecallOptions, FakeEngine, Status, create_context_recall_scorer
from offline_recall.engines.manifests import load_manifest
from offline_recall.judging.profile import RECALL, ProfileOrigin, find_profile
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import single_claim, trivial_claims

AMAZON = "The Amazon River is about 6,400 km long and flows into the Atlantic."


@pytest.mark.parametrize(
    "sentence",
    [
        "Paris is the capital of France.",
        "The tower was completed in 1889.",
        "The river is 6,400 km long.",
        "Gary Gardner will report to Aston Villa.",
    ],
)
def test_a_short_sentence_of_one_clause_is_one_claim(sentence: str) -> None:
    assert single_claim(sentence, 8)


@pytest.mark.parametrize(
    "sentence",
    [
        AMAZON,  # coordination
        "Curie, a physicist, won two prizes.",  # apposition
        "She won the prize after she moved to Paris.",  # a second clause
        "The tower (completed in 1889) is in Paris.",
        "Marie Curie won Nobel Prizes in physics in 1903 in Stockholm in Sweden today.",  # long
        "The.",  # no content word
    ],
)
def test_a_sentence_of_several_facts_goes_to_the_model(sentence: str) -> None:
    assert not single_claim(sentence, 8)


def test_a_claim_restating_the_subject_is_trivial() -> None:
    claims = [
        "The Amazon River is a river.",
        "The Amazon River is about 6,400 km long.",
        "The Amazon River flows into the Atlantic.",
    ]
    assert trivial_claims(AMAZON, claims) == ["The Amazon River is a river."]


def test_the_tail_of_another_claim_is_trivial_its_head_is_not() -> None:
    sentence = "서울의 인구는 약 천만 명이다."
    assert trivial_claims(sentence, ["서울의 인구는 약 천만 명이다.", "약 천만 명이다."]) == [
        "약 천만 명이다."
    ]
    keen = "Tim Sherwood is keen to assess Gardner ahead of next season."
    nested = ["Tim Sherwood is keen to assess Gardner.", keen]
    assert trivial_claims(keen, nested) == []


def test_the_sentence_itself_is_never_trivial() -> None:
    assert trivial_claims("Paris is big.", ["Paris is big."]) == []


def _scorer(engine: FakeEngine, version: str):  # type: ignore[no-untyped-def]
    return create_context_recall_scorer(
        engine,
        ContextRecallOptions(context=["Paris is the capital of France."]),
        prompt_version=version,
    )


def test_v4_sends_only_the_sentences_that_need_the_model() -> None:
    found = [
        "The Amazon River is a river.",
        "The Amazon River is about 6,400 km long.",
        "The Amazon River flows into the Atlantic.",
    ]
    engine = FakeEngine(lists={AMAZON: found}, prompt_version="v4")
    ground_truth = f"Paris is the capital of France. {AMAZON}"
    result = _scorer(engine, "v4").run({"groundTruth": ground_truth})
    assert engine.json_calls == [[AMAZON]]
    assert result.status is Status.OK
    assert result.claims == ["Paris is the capital of France.", *found[1:]]


def test_a_ground_truth_of_single_claims_makes_no_generation_call() -> None:
    engine = FakeEngine(prompt_version="v4")
    result = _scorer(engine, "v4").run({"groundTruth": "Paris is the capital of France."})
    assert engine.json_calls == []
    assert (result.status, result.score) == (Status.OK, 1.0)


def test_v3_still_sends_every_sentence() -> None:
    engine = FakeEngine(prompt_version="v3")
    _scorer(engine, "v3").run({"groundTruth": f"Paris is the capital of France. {AMAZON}"})
    assert engine.json_calls == [["Paris is the capital of France.", AMAZON]]
    rules = load_prompts("v3").extract
    assert (rules.single_claim_words, rules.drop_trivial) == (None, False)


def test_the_embedded_model_defaults_to_v5_with_its_shipped_profile() -> None:
    manifest = load_manifest()
    assert manifest.scorers[RECALL].prompt_version == "v5"
    found = find_profile(RECALL, manifest.fingerprint, "v5", manifest.threshold)
    assert found.origin is ProfileOrigin.SHIPPED
    assert found.profile.prompt_version == "v5"
    v3 = find_profile(RECALL, manifest.fingerprint, "v3", manifest.threshold)
    assert v3.origin is ProfileOrigin.SHIPPED and v3.profile.prompt_version == "v3"
