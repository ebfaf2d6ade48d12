"""The rules against claims a model made up or repeated: a quantity, or what a claim says of its
subject, that its text does not hold, and a claim another one says with more."""

from __future__ import annotations

import pytest

from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import (
    contained_claims,
    invented_quantities,
    settle_claims,
    ungrounded_predicate,
)

WALL = "The Great Wall of China is over 13,000 miles long."


def test_a_number_written_as_a_word_that_the_text_never_states_is_invented() -> None:
    sentence = "Marie Curie won Nobel Prizes in 1903 and 1911."
    assert invented_quantities("Marie Curie won two Nobel Prizes.", sentence) == [2.0]
    assert invented_quantities("Marie Curie won a Nobel Prize in 1903.", sentence) == []


@pytest.mark.parametrize(
    ("claim", "text"),
    [
        ("Gary Gardner is 22 years old.", "The 22-year-old is out on loan."),
        ("It has five known moons.", "It has 5 known moons."),
        ("The wall is over 13,000 miles long.", WALL),
        ("Twelve thousand people came.", "12,000 people came."),
    ],
)
def test_a_quantity_the_text_states_in_any_form_is_not_invented(claim: str, text: str) -> None:
    assert invented_quantities(claim, text) == []


def test_a_year_or_count_is_stated_only_by_the_same_whole_number() -> None:
    # The judge's rule for counts and years: within 0.5%, 1998 is not 1989.
    text = "The treaty was signed in 1989 by ninety-nine delegates."
    assert invented_quantities("The treaty was signed in 1998.", text) == [1998.0]
    assert invented_quantities("One hundred delegates signed it.", text) == [100.0]
    assert invented_quantities("Ninety-nine delegates signed it in 1989.", text) == []


def test_a_claim_that_names_its_subject_and_invents_the_rest_is_ungrounded() -> None:
    assert ungrounded_predicate("The Great Wall of China is a massive mountain.", WALL, 0.5)
    assert not ungrounded_predicate("The Great Wall of China is over 13,000 miles long.", WALL, 0.5)
    # inflections count as found: "completes" for "completed"
    assert not ungrounded_predicate(
        "The tower completes its renovation.", "The tower completed a renovation.", 0.5
    )


def test_a_claim_another_claim_says_with_more_is_a_repeat() -> None:
    claims = [
        "The vote was postponed.",
        "The vote was postponed until Friday.",
        "Two members were ill.",
    ]
    assert contained_claims(claims) == ["The vote was postponed."]
    assert contained_claims(["Paris is big.", "Paris is big."]) == []  # equal, not contained


def test_v5_drops_inventions_and_keeps_what_the_sentence_says() -> None:
    rules = load_prompts("v5").extract
    sentence = "The committee postponed the vote until Friday because members were ill."
    found = [
        "The committee postponed the vote.",
        "The committee postponed the vote until Friday.",
        "Two members were ill.",
        "The committee vote was a massive mountain.",
    ]
    assert settle_claims(sentence, found, rules) == found[:2]
    assert settle_claims(sentence, found, load_prompts("v4").extract) == found


def test_the_repeat_rule_drops_a_claim_another_one_says_with_more() -> None:
    rules = load_prompts("v5").extract.model_copy(update={"drop_contained": True})
    sentence = "The committee postponed the vote until Friday."
    found = ["The committee postponed the vote.", "The committee postponed the vote until Friday."]
    assert settle_claims(sentence, found, rules) == found[1:]
