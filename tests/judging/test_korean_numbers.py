"""Korean numbers: digits, Sino-Korean and native numerals with their counters, read into the
quantities the judge compares, and the syllables that only look like numerals left alone."""

from __future__ import annotations

import pytest

from offline_recall.judging.korean_numbers import numbers
from offline_recall.judging.quantities import quantities
from offline_recall.judging.signals import lexical_signals


def _read(text: str) -> list[tuple[float, str]]:
    return [(n.value, n.counter) for n in numbers(text)]


@pytest.mark.parametrize(
    ("text", "value", "counter"),
    [
        # Native numerals, before a counter.
        ("최대 열두 시간 사용할 수 있다.", 12, "시간"),
        ("스물다섯 명이 참석했다.", 25, "명"),
        ("사과 세 개를 샀다.", 3, "개"),
        ("약을 두 번 먹는다.", 2, "번"),
        ("한 달 뒤에 열린다.", 1, "달"),
        ("석 달 만에 끝났다.", 3, "달"),
        ("열 시간 걸렸다.", 10, "시간"),
        ("열한 명이 뛰었다.", 11, "명"),
        ("마흔두 개의 섬", 42, "개"),
        ("그는 스무 살이다.", 20, "살"),
        ("여덟 마리가 있다.", 8, "마리"),
        ("네 시간 동안 기다렸다.", 4, "시간"),
        ("다섯 층 건물", 5, "층"),
        ("지상 서른다섯 층", 35, "층"),  # one morpheme to the analyser
        ("예순다섯 살 이상", 65, "살"),
        # Sino-Korean numerals, before a counter or composed with a scale.
        ("삼십 분이 걸린다.", 30, "분"),
        ("이십일 일 동안 열린다.", 21, "일"),
        ("천오백 원을 냈다.", 1500, "원"),
        ("백 명이 모였다.", 100, "명"),
        ("오 분 뒤에 출발한다.", 5, "분"),
        ("사 년 만에 돌아왔다.", 4, "년"),
        ("이천이십사 년", 2024, "년"),
        ("구십 퍼센트가 찬성했다.", 90, "퍼센트"),
        ("칠십 %", 70, "%"),
        ("이십 세 이상", 20, "세"),
        ("십만 원", 100_000, "원"),
        ("백만 원", 1_000_000, "원"),
        ("오천만 원", 50_000_000, "원"),
        ("삼십", 30, ""),
        # Digits, with myriad scales and decimals.
        ("12시간 지속된다.", 12, "시간"),
        ("5만 원입니다.", 50_000, "원"),
        ("1억 원을 기부했다.", 100_000_000, "원"),
        ("3천 명", 3000, "명"),
        ("2만 5천 원", 25_000, "원"),
        ("1억 2천만 원", 120_000_000, "원"),
        ("10만 명", 100_000, "명"),
        ("실업률은 4.1%이다.", 4.1, "%"),
        ("3.5퍼센트 올랐다.", 3.5, "퍼센트"),
        ("1,000원", 1000, "원"),
        ("1,200가구가 입주한다.", 1200, "가구"),
        ("천이백 가구", 1200, "가구"),
        ("130여 척", 130, "척"),  # over 130
        # Native day words, a half, persons counted with 분.
        ("이틀 뒤에 돌아왔다.", 2, "일"),
        ("열흘 동안 비가 왔다.", 10, "일"),
        ("두 시간 반 걸렸다.", 2.5, "시간"),
        ("손님 세 분이 오셨다.", 3, "명"),
    ],
)
def test_a_number_is_read_with_its_counter(text: str, value: float, counter: str) -> None:
    assert _read(text) == [(value, counter)]


@pytest.mark.parametrize(
    "text",
    [
        "이 회사는 직원을 많이 뽑는다.",  # 이: "this"
        "직원이 회사에 왔다.",  # 이: a particle
        "세계 최고의 기업이다.",  # 세 opening 세계
        "한국의 세계 일류 기업",  # 한 opening 한국
        "그는 일을 열심히 한다.",  # 일: work
        "이 사람은 일을 잘한다.",
        "사 측은 노조와 만났다.",  # 사: company
        "이 시간에는 문을 닫는다.",  # 이 시간: this time
        "이 달에 발표한다.",  # 이 달: this month
        "한 사람이 왔다.",  # a native numeral with no counter
        "네, 시간이 없어요.",  # 네: yes
        "네가 말했다.",  # 네: you
        "백 가방을 샀다.",
        "하나만 골라라.",  # 만: only
        "문을 열 수 있다.",  # 열: open
    ],
)
def test_a_syllable_that_only_looks_like_a_numeral_is_no_number(text: str) -> None:
    assert _read(text) == []


def test_an_ordinal_is_not_a_count() -> None:
    assert _read("세 번째 앨범") == [(3, "번째")]
    assert quantities("세 번째 앨범") != quantities("세 번")


def test_a_native_numeral_stops_where_another_number_starts() -> None:
    assert _read("한 백 명") == [(100, "명")]  # 한 here is "about"
    assert _read("하루에 두 번") == [(1, "일"), (2, "번")]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("12시간", "열두 시간"),
        ("12시간", "십이 시간"),
        ("25명", "스물다섯 명"),
        ("30분", "삼십 분"),
        ("30분", "0.5시간"),
        ("50,000원", "5만 원"),
        ("50000원", "오만 원"),
        ("100,000,000원", "1억 원"),
        ("25,000원", "2만 5천 원"),
        ("1500원", "천오백 원"),
        ("3개", "세 개"),
        ("2번", "두 번"),
        ("1개월", "한 달"),
        ("3개월", "석 달"),
        ("100명", "백 명"),
        ("21일", "이십일 일"),
        ("2일", "이틀"),
        ("20세", "스무 살"),
        ("3명", "세 분"),
        ("90%", "구십 퍼센트"),
        ("2024년", "이천이십사 년"),
    ],
)
def test_one_quantity_in_any_form_is_one_quantity(one: str, other: str) -> None:
    assert quantities(one) == quantities(other) != ()


def test_digits_and_native_numerals_state_the_same_number() -> None:
    claim = "배터리는 최대 12시간 지속됩니다."
    signals = lexical_signals("최대 열두 시간 사용할 수 있습니다.", claim)
    assert signals["numbers"] == 1.0 and signals["quantity_mismatch"] == 0.0
    signals = lexical_signals("배터리는 최대 열두 시간 지속됩니다.", claim)
    assert signals["numbers"] == 1.0 and signals["quantity_mismatch"] == 0.0
    assert signals["missing"] == 0.0  # 열, 두 and 시간 say 12 and 시간


@pytest.mark.parametrize(
    ("context", "claim"),
    [
        ("배터리는 최대 열 시간 사용할 수 있습니다.", "배터리는 최대 12시간 지속됩니다."),
        ("이 제품의 가격은 3만 원이다.", "이 제품의 가격은 오만 원이다."),
        ("행사에는 스물다섯 명이 참석했다.", "행사에는 35명이 참석했다."),
        ("회의는 삼십 분 동안 열렸다.", "회의는 40분 동안 열렸다."),
        ("공사는 석 달 동안 진행된다.", "공사는 6개월 동안 진행된다."),
    ],
)
def test_a_different_number_in_any_form_contradicts(context: str, claim: str) -> None:
    signals = lexical_signals(context, claim)
    assert signals["quantity_mismatch"] == 1.0


def test_a_full_age_is_an_age() -> None:
    assert _read("만 20세 이상") == [(20, "세")]
    assert _read("만 이십 세 이상") == [(20, "세")]
    assert _read("만 오천 원") == [(15_000, "원")]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("2시간 30분", "두 시간 삼십 분"),
        ("2시간 30분", "2시간 반"),
        ("4분 30초", "270초"),
        ("4분 30초", "4분 반"),
        ("1년 6개월", "열여덟 달"),
        ("3시 30분", "세 시 반"),
        ("물 550ml", "물 오백오십 밀리리터"),
        ("물 1.5리터", "물 1,500ml"),
    ],
)
def test_a_quantity_in_two_units_is_one_quantity(one: str, other: str) -> None:
    assert quantities(one) == quantities(other) != ()
    assert len(quantities(one)) == 1


def test_a_year_is_not_a_duration_before_months() -> None:
    assert _read("2020년 6개월") == [(2020, "년"), (6, "개월")]
