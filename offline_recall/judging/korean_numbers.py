"""Numbers in Korean text, read from its morphemes with the counters after them.

Korean writes a number three ways: digits (12시간, 5만 원), Sino-Korean numerals (삼십 분,
천오백 원, 이십일 일) and native numerals (열두 시간, 스물다섯 명, 세 개, 한 달). All three are
read here into one value and the counter or unit that follows it, so 12시간, 열두 시간 and
십이 시간 are one quantity.

The numerals are also ordinary syllables: 이 is "this" and a particle, 일 is "work", 사 is a
company, 세 opens 세계, 한 opens 한국. The analyser tells most of them apart (이 as "this" is
a determiner, MM; as "two" a numeral, NR), and a numeral is read only as a number's part:

- a Sino-Korean digit (일, 이, 삼, ...) only where the analyser reads it as a numeral (NR),
  and only followed by a counter or composed with 십, 백, 천, 만 or 억 (삼십, 이천이십사);
- a native numeral (한, 두, 세, 열두, 스물다섯, ...) only directly followed by a counter (세
  개, 한 달); 네 read as "yes" is "four" only there;
- a scale alone (백, 천, 만) only followed by a counter (백 명, 만 원);
- digits always, as the English reading does (5만 is 50,000; 3.5% is 3.5).

A native numeral before 분 counts persons (세 분, three people), where a Sino-Korean one or
digits count minutes (삼 분, 3분). The native words for a number of days (하루, 이틀, 사흘, ...
열흘, 보름) are days. An ordinal (세 번째) is its counter's ordinal, not a count of it. A
quantity in two units is one (2시간 30분 is 150분, 4분 30초 is 4분 반, 1년 6개월 is 열여덟 달, 3시
30분 is 세 시 반), and "over" (130여 척) is read as the number itself.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .korean import Morpheme, morphemes

_SINO = {"영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8,
         "구": 9}  # fmt: skip
_NATIVE = {
    "한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "서": 3, "네": 4, "넷": 4,
    "넉": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "스물": 20,
    "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80, "아흔": 90,
}  # fmt: skip
_SMALL_SCALES = {"십": 10.0, "백": 100.0, "천": 1000.0}
_LARGE_SCALES = {"만": 1e4, "억": 1e8, "조": 1e12}
_SCALES = _SMALL_SCALES | _LARGE_SCALES
# Native words for a number of days.
_DAYS = {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7,
         "여드레": 8, "아흐레": 9, "열흘": 10, "보름": 15}  # fmt: skip
# Counters the analyser may tag as common or bound nouns rather than as counters (NNBC).
_COUNTERS = frozenset([
    "시간", "달", "주", "주일", "개월", "년", "월", "일", "분", "초", "시", "명", "원", "개", "번",
    "회", "차례", "층", "배", "살", "세", "권", "곳", "가지", "마리", "학년", "세기", "퍼센트",
    "프로", "달러", "엔", "유로", "킬로미터", "미터", "센티미터", "킬로그램", "그램", "톤", "종",
    "분기", "가구", "척",
])  # fmt: skip
# Counters a half (반) may follow: 두 시간 반, 1년 반, 세 시 반.
_HALVES = frozenset(["시간", "분", "달", "개월", "년", "시", "주", "주일", "세기"])


class Number(NamedTuple):
    """A number read from Korean text, the counter or unit after it ("" for none), and the
    morphemes that state them."""

    value: float
    counter: str
    words: tuple[str, ...]


def _digits(form: str) -> float | None:
    try:
        return float(form.replace(",", ""))
    except ValueError:
        return None


def _atoms(ms: tuple[Morpheme, ...]) -> tuple[list[Morpheme], list[int]]:
    """The morphemes with a numeral the analyser kept whole (천만, 이십일, 서른다섯) split into
    its digits, numerals and scales, so that each atom is one; and for each atom, the index of
    the morpheme it comes from."""
    out: list[Morpheme] = []
    origin: list[int] = []
    for n, m in enumerate(ms):
        parts = [m]
        if m.tag == "NR" and len(m.form) > 1 and m.form not in _NATIVE:
            if all(c in _SINO or c in _SCALES for c in m.form):
                parts = [Morpheme(c, "NR") for c in m.form]
            for k in range(1, len(m.form)):  # 서른다섯: 서른, 다섯
                if m.form[:k] in _NATIVE and m.form[k:] in _NATIVE:
                    parts = [Morpheme(m.form[:k], "NR"), Morpheme(m.form[k:], "NR")]
        out += parts
        origin += [n] * len(parts)
    return out, origin


def _is_counter(m: Morpheme) -> bool:
    return (
        m.tag == "NNBC"
        or (m.tag in ("NNG", "NNB", "NNP") and m.form in _COUNTERS)
        or m.tag == "SL"
        or m.form in ("%", "퍼센트")
    )


def _decimal(ms: list[Morpheme], i: int) -> tuple[float, int] | None:
    """Digits at `i`, with a decimal part the analyser split off ("3.5": 3, ".", 5): the value
    and the index after it."""
    value = _digits(ms[i].form)
    if value is None:
        return None
    if i + 2 < len(ms) and ms[i + 1].form == "." and ms[i + 2].tag == "SN":
        fraction = ms[i + 2].form.replace(",", "")
        if fraction.isdigit() and "." not in ms[i].form:
            return float(f"{ms[i].form.replace(',', '')}.{fraction}"), i + 3
    return value, i + 1


class _Numeral(NamedTuple):
    """The number that starts a run of morphemes, as read so far."""

    value: float
    end: int
    digits: bool
    """Whether digits state it (digits are a number with or without a counter)."""
    composed: bool
    """Whether Sino-Korean digits and a scale compose it (삼십: a number without a counter)."""
    native: bool


def _numeral(ms: list[Morpheme], i: int) -> _Numeral | None:
    """The digits, numerals and scales from `i` on as one value; None if none starts there."""
    start = i
    total = section = current = 0.0
    digits = sino = scaled = native = tens = False  # tens: 열 or 스물 just read, a unit may follow
    while i < len(ms):
        m = ms[i]
        following = ms[i + 1] if i + 1 < len(ms) else None
        read = _decimal(ms, i) if m.tag == "SN" else None
        if read is not None:
            if current or native:
                break
            current, i = read
            digits = True
            continue
        if m.tag == "NR" and m.form in _SINO:
            if current or native:
                break
            current, sino = float(_SINO[m.form]), True
        elif m.form in _NATIVE and (
            m.tag in ("NR", "MM")
            or (m.form == "네" and following is not None and _is_counter(following))
        ):
            value = float(_NATIVE[m.form])
            if i > start and not (tens and value < 10):
                break
            current, native = current + value, True
            tens = value >= 10 and value % 10 == 0
            i += 1
            continue
        elif m.tag == "NR" and m.form in _SCALES and not native:
            scale = _SCALES[m.form]
            if scale < 1e4:
                section, current = section + (current or 1.0) * scale, 0.0
            else:
                total, section, current = total + (section + current or 1.0) * scale, 0.0, 0.0
            scaled = True
        else:
            break
        tens = False
        i += 1
    if i == start:
        return None
    return _Numeral(total + section + current, i, digits, sino and scaled, native)


# A quantity followed directly by a smaller unit is one quantity (2시간 30분, 1년 6개월, 3시
# 30분): the smaller unit, the factor between the two, and whether the sum is in the larger.
_SMALLER = {
    "시간": ("분", 60.0, False),
    "분": ("초", 60.0, False),
    "년": ("개월", 12.0, False),
    "시": ("분", 60.0, True),  # 3시 30분 is half past three, as 3시 반 is
}


def numbers(text: str) -> list[Number]:
    """The numbers of `text` with their counters: digits (3개월, 1,000원, 4.1%), digits with
    scales (3만 명, 2만 5천 원), Sino-Korean numerals (삼십 분, 천오백 원), native numerals (세
    명, 열두 시간, 스무 살), native day words (이틀), durations in two units (2시간 30분). A
    numeral that is neither followed by a counter nor a Sino-Korean digit composed with a scale
    ("한 사람", "이 법", "백") is no number; digits alone are."""
    whole = morphemes(text)
    ms, origin = _atoms(whole)
    found: list[Number] = []
    ends: list[int] = []  # where each number found ends
    i = 0
    while i < len(ms):
        if ms[i].tag.startswith("NN") and ms[i].form in _DAYS:
            found.append(Number(float(_DAYS[ms[i].form]), "일", (ms[i].form,)))
            i += 1
            ends.append(i)
            continue
        start = i
        read = _numeral(ms, i)
        if read is None:
            i += 1
            continue
        value, i = read.value, read.end
        if i + 1 < len(ms) and ms[i].form == "여" and ms[i].tag == "XSN" and _is_counter(ms[i + 1]):
            i += 1  # 130여 척: over 130, read as 130
        counter = ""
        # 세 after a Sino-Korean numeral is its counter (이십 세), read as a determiner.
        if i < len(ms) and (_is_counter(ms[i]) or (ms[i].form == "세" and not read.native)):
            counter = ms[i].form
            i += 1
            if counter == "분" and read.native:
                counter = "명"  # 세 분: three people; minutes are counted in Sino-Korean
            if i < len(ms) and ms[i].form == "째":
                counter, i = counter + "째", i + 1
        if counter in ("세", "살") and ms[start].form == "만" and value > 1e4:
            value, start = value - 1e4, start + 1  # 만 20세: "fully" 20, not 10,020
        if counter in _HALVES and i < len(ms) and ms[i].form == "반" and ms[i].tag == "NNG":
            value, i = value + 0.5, i + 1
        # Spelled numerals without a counter are words, not numbers ("한 사람", "이 법"),
        # unless they are Sino-Korean digits composed with a scale (삼십) or digits (5만).
        if not (counter or read.digits or read.composed) or not math.isfinite(value):
            continue
        stating = whole[origin[start] : origin[i - 1] + 1]  # as the analyser wrote them
        number = Number(value, counter, tuple(m.form for m in stating))
        smaller = _SMALLER.get(found[-1].counter) if found and ends[-1] == start else None
        if smaller is not None and smaller[0] == counter:
            before = found.pop()
            ends.pop()
            if before.counter != "년" or before.value < 100:  # 2020년 6개월 is a date
                _, factor, larger = smaller
                words = before.words + number.words
                if larger:
                    number = Number(before.value + value / factor, before.counter, words)
                else:
                    number = Number(before.value * factor + value, counter, words)
            else:
                found.append(before)
                ends.append(start)
        found.append(number)
        ends.append(i)
    return found
