"""A card counts each kind of behaviour case right, in all and per language; the Korean
number and paraphrase cases hold both answers."""

from __future__ import annotations

from offline_recall.judging.behaviour import (
    LANGUAGES,
    Case,
    JudgeCard,
    KindScore,
    LanguageScore,
    card_of,
    cases,
)


def _case(kind: str, language: str, supported: bool) -> Case:
    claim = f"{kind} {language} {supported}"
    return Case(kind=kind, language=language, context="c", claim=claim, supported=supported)


def test_each_kinds_count_is_split_by_language() -> None:
    chosen = [
        _case("number", "ko", True),
        _case("number", "en", False),
        _case("number", "ko", False),
        _case("paraphrase", "en", True),
    ]
    card = card_of([True, False, True, True], chosen)
    number = card.kinds[0]
    assert number == KindScore(
        kind="number",
        right=2,
        total=3,
        languages=(
            LanguageScore(language="en", right=1, total=1),
            LanguageScore(language="ko", right=1, total=2),
        ),
    )
    assert card.describe() == "number 2/3 (en 1/1, ko 1/2), paraphrase 1/1"


def test_a_card_measured_without_languages_reads_as_before() -> None:
    card = JudgeCard.model_validate({"kinds": [{"kind": "number", "right": 3, "total": 4}]})
    assert card.describe() == "number 3/4"
    assert card.failures(reads=True) == ["number 3/4"]


def test_every_case_is_in_a_listed_language() -> None:
    assert {c.language for c in cases()} == set(LANGUAGES)


def test_korean_numbers_and_paraphrases_hold_both_answers() -> None:
    # Numbers: the context's number in another form, or another number. Paraphrases: the
    # context reworded, or reworded into another meaning.
    for kind in ("number", "paraphrase"):
        korean = [c for c in cases() if c.kind == kind and c.language == "ko"]
        assert sum(c.supported for c in korean) >= 15, kind
        assert sum(not c.supported for c in korean) >= 8, kind
