"""The judge's signals against support: polarity, opposite words, quantities (no model)."""

from __future__ import annotations

import math

import pytest

from offline_recall import load_manifest
from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.polarity import antonyms, negated, opposite, polarity_mismatch, tokens
from offline_recall.judging.profile import ProfileOrigin, find_profile
from offline_recall.judging.quantities import Quantity, quantities, quantity_signals
from offline_recall.judging.signals import LEXICAL_SIGNALS, lexical_signals
from offline_recall.runs.calibration.fit import fit_profile

RECALL = "context-recall-scorer"
FINGERPRINT = "smollm2-135m-instruct@9634263adf6bc976"
"""The embedded model's fingerprint: its shipped profile is found by it."""
ASPIRIN = "Aspirin is not safe for children with viral infections such as the flu."


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def content(claim: str) -> set[str]:
    return {w for w in tokens(claim) if w.isalpha() and len(w) > 2}


@pytest.mark.parametrize(
    ("claim", "sentence", "flipped"),
    [
        ("Aspirin is safe for children.", ASPIRIN, True),
        ("Aspirin is not safe for children.", ASPIRIN, False),
        ("Aspirin isn't safe for children.", ASPIRIN, False),
        ("The drug lowered blood pressure.", "It failed to lower blood pressure.", True),
        ("It failed to lower blood pressure.", "It failed to lower blood pressure.", False),
        ("The drug lowers pressure.", "The drug never lowers pressure.", True),
        # A negation of words the claim does not share is no mismatch.
        ("He moved to Paris.", "He moved to Paris, not to Rome.", False),
        # Nor is a compound such as "not-for-profit".
        ("NYU is a private institution.", "NYU is a not-for-profit private institution.", False),
        # A negation counts only where the other text states its head: "failed to answer"
        # denies answering, which the first claim does not speak of.
        (
            "Hotel staff found her body in her hotel room.",
            "She failed to answer the door to her hotel room.",
            False,
        ),
        ("She answered the door to her hotel room.", "She failed to answer the door.", True),
    ],
)
def test_polarity_mismatch_is_scoped_to_the_shared_words(
    claim: str, sentence: str, flipped: bool
) -> None:
    assert (polarity_mismatch(claim, [sentence], content(claim)) is not None) is flipped


def test_whether_or_not_denies_nothing() -> None:
    sentence = "The jury will decide whether he is guilty."
    claim = "The jury will decide whether or not he is guilty."
    assert polarity_mismatch(claim, [sentence], content(claim)) is None
    assert negated(tokens(claim)) == set()
    claim = "The jury decided he is not guilty."
    assert polarity_mismatch(claim, ["The jury decided he is guilty."], content(claim)) == 0


def test_a_negation_scope_ends_at_its_clause() -> None:
    words = tokens("It did not rain, but the river rose.")
    inside = {words[i] for i in negated(words)}
    assert "rain" in inside and "river" not in inside


@pytest.mark.parametrize(
    ("claim", "sentence", "opposed"),
    [
        ("Shares fell 12% on Tuesday.", "Shares rose 12% on Tuesday.", True),
        ("Revenue decreased to 4 billion.", "Revenue increased to 4 billion.", True),
        ("The team lost the final.", "The team won the final.", True),
        ("The team won the final.", "The team won the final.", False),
        # Both words in the sentence: no opposite.
        ("Prices rose.", "Prices fell, then rose.", False),
        # Only free predicate words have opposites. A word inside a hyphenated compound is
        # part of another word.
        ("The 27-year-old quarterback signed.", "The young quarterback signed.", False),
        ("The old quarterback signed.", "The young quarterback signed.", True),
        # Nouns for people by sex or kin name two people, not two states.
        ("Her mother died in 2006.", "Her father died in 2006.", False),
        ("Her mother is alive.", "Her mother is dead.", True),
        # Ordinals name places in a series.
        ("He scored in the second leg.", "He scored in the first leg.", False),
    ],
)
def test_opposite_words_from_the_packaged_lexicon(claim: str, sentence: str, opposed: bool) -> None:
    assert opposite(claim, sentence, content(claim)) is opposed


def test_the_lexicon_ships_inside_the_package() -> None:
    table = antonyms()
    assert "fall" in table["rise"] and "lose" in table["win"] and "decrease" in table["increase"]
    assert len(table) > 3000


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Water boils at 100 degrees Celsius.", Quantity(100.0, "°C", "temperature")),
        ("water boils at 212 °F", Quantity(100.0, "°C", "temperature")),
        ("It lasted three decades.", Quantity(30.0, "year", "duration")),
        ("It lasted 30 years.", Quantity(30.0, "year", "duration")),
        ("The stadium holds twelve thousand people.", Quantity(12000.0, "number", "number")),
        ("The wall fell in 1989.", Quantity(1989.0, "number", "year")),
        ("The stadium holds 12,000 people.", Quantity(12000.0, "number", "number")),
        ("The river is 12 km long.", Quantity(12000.0, "m", "length")),
        ("The river is twelve kilometres long.", Quantity(12000.0, "m", "length")),
        ("It opened at 3 pm.", Quantity(900.0, "minute of day", "time of day")),
        ("It opened at 15:00.", Quantity(900.0, "minute of day", "time of day")),
        ("She won only one prize.", Quantity(1.0, "number", "number")),
        ("Unemployment fell to 5 percent.", Quantity(5.0, "%", "share")),
    ],
)
def test_quantities_in_digits_words_and_units(text: str, found: Quantity) -> None:
    assert found in quantities(text)


def test_one_as_a_pronoun_is_no_count() -> None:
    assert quantities("No one came; one of them left.") == ()


def test_a_quantity_stated_otherwise_is_a_mismatch_and_the_same_one_a_match() -> None:
    sentences = ["Marie Curie won two Nobel Prizes.", "She was born in Warsaw in 1867."]
    assert quantity_signals("Curie won 2 Nobel Prizes.", sentences, [0]).mismatch == 0.0
    two = quantity_signals("Curie won two Nobel Prizes.", sentences, [0])
    assert (two.found, two.mismatch) == (1.0, 0.0)
    three = quantity_signals("Curie won three Nobel Prizes.", sentences, [0])
    assert (three.found, three.mismatch) == (0.0, 1.0)
    # Years are compared exactly: 1876 is not 1867.
    assert quantity_signals("She was born in 1876.", sentences, [1]).mismatch == 1.0
    # No quantity of the kind in the best sentences: missing, but not contradicted.
    assert quantity_signals("She was born in 1876.", sentences, [0]).mismatch == 0.0


def test_a_number_joined_to_letters_is_part_of_a_word() -> None:
    sentence = "In the quarter-finals, Berdych beat Monaco; Murray won the semi-final in four sets."
    # "last-eight" is no count of sets: missing here, but not contradicted.
    last_eight = quantity_signals("Berdych beat Monaco in the last-eight.", [sentence], [0])
    assert (last_eight.found, last_eight.mismatch) == (0.0, 0.0)
    assert quantity_signals("Berdych beat Monaco in eight sets.", [sentence], [0]).mismatch == 1.0
    # Found where the context states it, in a compound or not.
    found = quantity_signals("Berdych reached the last-eight.", ["He reached the last-eight."], [0])
    assert (found.found, found.mismatch) == (1.0, 0.0)
    # Nor is "three-day" a rival value of "twice".
    rival = "He won a three-day playoff at the Masters."
    assert quantity_signals("He won the Masters twice.", [rival], [0]).mismatch == 0.0
    once = "He has won the Masters only once."
    assert quantity_signals("He won the Masters twice.", [once], [0]).mismatch == 1.0


def test_a_count_is_compared_with_counts_of_the_same_noun() -> None:
    sentence = "Holmes is accused of killing 12 people and injuring 70 others."
    assert quantity_signals("Holmes faces 165 counts.", [sentence], [0]).mismatch == 0.0
    claim = "Holmes is accused of killing 14 people."
    assert quantity_signals(claim, [sentence], [0]).mismatch == 1.0


def test_a_count_with_a_word_before_its_noun_is_compared_with_the_noun() -> None:
    known = "Jupiter has five known moons."
    assert quantity_signals("Jupiter has two moons.", [known], [0]).mismatch == 1.0
    assert quantity_signals("Jupiter has five known moons.", ["It has two moons."], [0]).mismatch
    assert quantity_signals("Jupiter has five moons.", [known], [0]).mismatch == 0.0
    # Two different nouns after two different words stay apart.
    assert quantity_signals("He sold 5 books last year.", ["He sold 3 copies."], [0]).mismatch == 0


def test_a_value_the_claim_states_is_no_rival_of_its_other_values() -> None:
    sentence = "He proposed after running 24.5 miles."
    claim = "He had already run 24.5 miles of the 26.2 mile marathon."
    assert quantity_signals(claim, [sentence], [0]) == (0.5, ("24.5", "miles"), 0.0)
    claim = "He had run 22 miles of the 26.2 mile marathon."
    assert quantity_signals(claim, [sentence], [0]).mismatch == 1.0


def test_lexical_signals_carry_the_new_signals() -> None:
    context = "The Berlin Wall divided the city. On 9 November 1989 the wall came down."
    values = lexical_signals(context, "The Berlin Wall came down in 1998.")
    assert set(values) == set(LEXICAL_SIGNALS)
    assert values["numbers"] == 0.0 and values["quantity_mismatch"] == 1.0
    values = lexical_signals(ASPIRIN, "Aspirin is safe for children with viral infections.")
    assert values["polarity"] > 0.8 and values["opposite"] == 0.0
    # "Dangerous" against "not safe": the two flips agree, neither counts.
    values = lexical_signals(ASPIRIN, "Aspirin is dangerous for children with viral infections.")
    assert values["polarity"] == values["opposite"] == 0.0
    safe = "Aspirin is safe for children with viral infections such as the flu."
    values = lexical_signals(safe, "Aspirin is not dangerous for children with viral infections.")
    assert values["polarity"] == values["opposite"] == 0.0


def test_a_quantity_spelled_otherwise_counts_as_found() -> None:
    context = "At sea level, water boils at 100 °C (212 °F)."
    values = lexical_signals(context, "Water boils at 100 degrees Celsius.")
    assert values["overlap"] == 1.0 and values["quantity_mismatch"] == 0.0


def test_a_contradiction_decides_though_the_labelled_rows_never_held_one() -> None:
    """A fitted profile takes the rule's logits off for a flip or a contradicted quantity,
    though no labelled row showed one: the rows cannot teach what the signal means."""
    signals = ("overlap", "polarity", "opposite", "quantity_mismatch")
    pairs, values = [], []
    for i in range(12):
        label = i % 2 == 0
        pairs.append(LabelledPair(context=f"c{i}", claim=f"claim {i}", label=label, group=str(i)))
        overlap = 0.8 + i / 100 if label else 0.2 + i / 100
        values.append(
            {"overlap": overlap, "polarity": 0.0, "opposite": 0.0, "quantity_mismatch": 0.0}
        )
    profile = fit_profile(
        pairs, values, fingerprint="f", prompt_version="v", signals=signals, folds=3
    )
    clean = {"overlap": 1.0, "polarity": 0.0, "opposite": 0.0, "quantity_mismatch": 0.0}
    assert profile.probability(clean) >= profile.threshold
    for name, logits in (("polarity", 4.0), ("opposite", 4.0), ("quantity_mismatch", 2.0)):
        flipped = profile.probability({**clean, name: 1.0})
        assert flipped < profile.threshold, name
        assert logit(profile.probability(clean)) - logit(flipped) == pytest.approx(logits), name


def test_a_word_said_with_a_synonym_counts() -> None:
    context = "Construction of the tower finished in 1889, in time for the World's Fair."
    assert lexical_signals(context, "It was completed in 1889.")["synonyms"] > 0.3
    assert lexical_signals(context, "It was demolished in 1889.")["synonyms"] == 0.0


def test_the_examples_paraphrase_is_supported_by_the_shipped_rule() -> None:
    manifest = load_manifest()
    assert manifest.scorers[RECALL].prompt_version is not None
    found = find_profile(RECALL, FINGERPRINT, manifest.scorers[RECALL].prompt_version, 0.5)
    assert found.origin is ProfileOrigin.SHIPPED
    context = "Construction of the tower finished in 1889, in time for the World's Fair."
    rule = found.profile
    assert rule.probability(lexical_signals(context, "It was completed in 1889.")) >= rule.threshold
    assert rule.probability(lexical_signals(context, "It was completed in 1898.")) < rule.threshold
