"""Reading the constrained extraction output of the transformers backend."""

from __future__ import annotations

from offline_recall.engines import Failed
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import finished_claims, settle_claims


def test_a_claim_list_cut_off_mid_claim_keeps_the_finished_claims() -> None:
    cut = '{"claims": ["Paris is in France.", "It is old.", "It is big, big, big, bi'
    assert finished_claims(cut) == ["Paris is in France.", "It is old."]


def test_nothing_finished_is_nothing() -> None:
    assert finished_claims('{"claims": ["never finish') == []
    assert finished_claims('{"claims"') == []


def test_a_complete_list_reads_whole() -> None:
    assert finished_claims('{"claims" : [ "x" ,"y"]}') == ["x", "y"]


def test_v2_rules_drop_made_up_claims_and_fall_back_to_sentences() -> None:
    rules = load_prompts("v2").extract
    text = "The museum opened in 1901. It holds 3,000 paintings."
    claims = ["The museum opened in 1901.", "It holds 3,000 paintings.", "Dragons guard it."]
    assert settle_claims(text, claims, rules) == claims[:2]
    fallback = ["The museum opened in 1901.", "It holds 3,000 paintings."]
    assert settle_claims(text, ["Dragons guard the vault."], rules) == fallback
    assert settle_claims(text, Failed("runaway"), rules) == fallback


def test_v1_rules_keep_what_the_model_wrote() -> None:
    rules = load_prompts("v1").extract
    assert settle_claims("Text.", ["Made up."], rules) == ["Made up."]
    assert settle_claims("Text.", Failed("runaway"), rules) == Failed("runaway")


def test_v2_rules_add_the_sentences_the_claims_skipped() -> None:
    rules = load_prompts("v2").extract
    text = "The museum opened in 1901. It holds 3,000 paintings. Entry is free on Sundays."
    found = settle_claims(text, ["The museum opened in 1901."], rules)
    assert found == [
        "The museum opened in 1901.",
        "It holds 3,000 paintings.",
        "Entry is free on Sundays.",
    ]


def test_v4_rules_drop_a_claim_that_reverses_its_sentence_and_keep_the_sentence() -> None:
    rules = load_prompts("v4").extract
    for sentence, invented in [
        ("Water boils at 100 degrees Celsius at sea level.",
         "Water does not boil at 100 degrees Celsius at sea level."),
        ("No, managers are exempt from overtime.", "No, managers are not exempt from overtime."),
        ("Shares rose sharply on Monday.", "Shares fell sharply on Monday."),
    ]:  # fmt: skip
        kept = settle_claims(sentence, [sentence, invented], rules)
        assert kept == [sentence], invented
        # a sentence left with no claim stands as its own claim
        assert settle_claims(sentence, [invented], rules) == [sentence]


def test_v4_rules_keep_negations_the_sentence_makes() -> None:
    rules = load_prompts("v4").extract
    sentence = "The benefit is not available to contractors, only to employees."
    claims = ["The benefit is not available to contractors.", "The benefit is for employees."]
    assert settle_claims(sentence, claims, rules) == claims
    assert settle_claims("직원은 수습 기간이 없다.", ["직원은 수습 기간이 없다."], rules) == [
        "직원은 수습 기간이 없다."
    ]
