"""Quantities in a claim and its evidence: numbers as digits or words, units, years, times.

A claim's quantity that the context states too (the same value in the same or a convertible
unit: "100 degrees Celsius" and "100 °C", "three decades" and "30 years", "twelve thousand"
and "12,000", "3 pm" and "15:00") supports it; one that the context does not state, where the
sentence that best matches the claim's other words states another of the same kind ("two"
against "only one", 1998 against 1989, 12 miles against 12 kilometres), counts strongly
against it. A number is read with what it is part of and what it counts:

- a number joined by a hyphen to letters ("last-eight", "mother-of-two", "three-month") is part
  of a word: it counts as found where the context states it, but is neither a value the context
  must state to contradict the claim nor a rival value;
- a plain count is compared only with counts of the same noun, the word after it ("165 counts"
  is no rival of "12 people"; "two prizes" is of "three prizes"), or the word after that where
  one of the two is modified ("two moons" is a rival of "five known moons");
- a value the claim states itself is no rival of its other values ("24.5 miles of the 26.2 mile
  marathon" against "he proposed after 24.5 miles").

Read by a small table here rather than a library: quantulum3, the unit reader on the package
index, reads these cases too but loads in 15 to 25 s on a 2-core machine (its `inflect`
dependency is instrumented by typeguard at import) and pulls scikit-learn in, a cost every
`score` would pay; the judge needs numbers, a few dozen units and times of day, read in
microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from . import korean, korean_numbers
from .lexicon import STOP_WORDS, stem


class Quantity(NamedTuple):
    """A value in a base unit of a kind ("length" in metres; "year"; "number" for a count)."""

    value: float
    unit: str
    kind: str


SMALL_NUMBERS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORDS = {w: float(i) for i, w in enumerate(SMALL_NUMBERS)} | {
    w: float(20 + 10 * i) for i, w in enumerate(_TENS)
}
_WORDS |= {"dozen": 12.0, "once": 1.0, "twice": 2.0, "thrice": 3.0, "single": 1.0}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# Unit spellings (case folded) -> (base unit, kind, factor to the base unit).
_UNITS: dict[str, tuple[str, str, float]] = {}
for _names, _base, _kind, _factor in (
    ("km kms kilometre kilometres kilometer kilometers", "m", "length", 1e3),
    ("m metre metres meter meters", "m", "length", 1.0),
    ("cm centimetre centimetres centimeter centimeters", "m", "length", 1e-2),
    ("mm millimetre millimetres millimeter millimeters", "m", "length", 1e-3),
    ("mi mile miles", "m", "length", 1609.344),
    ("ft foot feet", "m", "length", 0.3048),
    ("yard yards yd", "m", "length", 0.9144),
    ("kg kgs kilogram kilograms kilo kilos", "kg", "mass", 1.0),
    ("g gram grams", "kg", "mass", 1e-3),
    ("t tonne tonnes ton tons", "kg", "mass", 1e3),
    ("lb lbs pound pounds", "kg", "mass", 0.45359237),
    ("% percent per_cent percentage", "%", "share", 1.0),
    ("year years yr yrs", "year", "duration", 1.0),
    ("decade decades", "year", "duration", 10.0),
    ("century centuries", "year", "duration", 100.0),
    ("month months", "month", "duration", 1.0),
    ("week weeks", "day", "duration", 7.0),
    ("day days", "day", "duration", 1.0),
    ("hour hours hr hrs h", "hour", "duration", 1.0),
    ("minute minutes min mins", "hour", "duration", 1 / 60),
    ("km/h kph", "km/h", "speed", 1.0),
    ("mph", "km/h", "speed", 1.609344),
    ("dollar dollars usd $", "$", "money", 1.0),
    ("euro euros eur €", "€", "money", 1.0),
    ("£", "£", "money", 1.0),
):
    for _name in _names.split():
        _UNITS[_name.replace("_", " ")] = (_base, _kind, _factor)
_DEGREES = {"c": "°C", "celsius": "°C", "centigrade": "°C", "f": "°F", "fahrenheit": "°F"}

_NUMBER_WORD = "|".join(sorted([*_WORDS, *_SCALES, "a", "and"], key=len, reverse=True))
_QUANTITY = re.compile(
    r"(?P<pre>[$€£])?\s?"
    r"(?P<num>(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\d,]\d)"
    rf"|\b(?:(?:{_NUMBER_WORD})[\s-]+)*(?:{'|'.join(sorted(_WORDS, key=len, reverse=True))}"
    rf"|{'|'.join(_SCALES)})\b)"
    rf"(?:\s*(?P<scale>{'|'.join(_SCALES)})\b)?"
    r"(?:\s*(?P<deg>°\s?[cf]\b|degrees?\s+(?:celsius|centigrade|fahrenheit|[cf]\b))"
    r"|\s*(?P<unit>%|per cent|km/h|[a-z$€]+))?",
    re.I,
)
_TIME_OF_DAY = re.compile(
    r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})\b", re.I
)
# Relative tolerance when large or fractional values are compared (rounding: "4.2 billion").
_TOLERANCE = 0.005
_YEAR = re.compile(r"^(?:1[0-9]|20)\d\d$")
_HYPHENS = "-\u2010\u2011"
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)\b")
# Words before "one" that make it a pronoun, not a count ("no one", "the one", "a second one").
_NOT_A_COUNT = frozenset(
    ["no", "the", "any", "every", "each", "this", "that", "which", "second", "another"]
)


def _times(text: str) -> tuple[str, list[tuple[Quantity, str]]]:
    """The times of day in `text` (minutes after midnight, with their words), and the text
    without them."""
    found: list[tuple[Quantity, str]] = []

    def take(m: re.Match[str]) -> str:
        if m.group(4) is not None:
            hour, minute = int(m.group(4)), int(m.group(5))
        else:
            hour, minute = int(m.group(1)) % 12, int(m.group(2) or 0)
            if m.group(3).lower() == "p":
                hour += 12
        if hour < 24 and minute < 60:
            found.append((Quantity(hour * 60.0 + minute, "minute of day", "time of day"), m[0]))
        return " ; "

    return _TIME_OF_DAY.sub(take, text), found


def _words_value(words: list[str]) -> float | None:
    """The value of number words ("twelve thousand", "a hundred and five"), None if none."""
    total, current, seen = 0.0, 0.0, False
    for word in words:
        if word in _WORDS:
            current += _WORDS[word]
            seen = True
        elif word in _SCALES:
            scale = _SCALES[word]
            current = (current or 1.0) * scale
            seen = True
            if scale >= 1e3:
                total, current = total + current, 0.0
        elif word == "a":
            current += 0.0
    return total + current if seen else None


def _value(text: str) -> float | None:
    if text[0].isdigit():
        return float(text.replace(",", ""))
    return _words_value(re.split(r"[\s-]+", text.casefold()))


def _unit(m: re.Match[str]) -> tuple[str, str, float, bool]:
    """(unit, kind, factor, whether the match's unit word was used)."""
    if m.group("deg"):
        word = m.group("deg").casefold().replace("°", " ").split()[-1]
        return _DEGREES[word], "temperature", 1.0, True
    unit = (m.group("unit") or "").casefold()
    if unit in _UNITS:
        return (*_UNITS[unit], True)
    if m.group("pre"):
        return (*_UNITS[m.group("pre")], False)
    return "number", "number", 1.0, False


class Stated(NamedTuple):
    """A quantity as a text states it."""

    quantity: Quantity
    words: str
    """The words that state it."""
    in_word: bool = False
    """Whether its number is joined by a hyphen to letters ("last-eight", "three-month")."""
    noun: str | None = None
    """What a plain count counts: the word after it, stemmed ("165 counts": "count")."""
    then: str | None = None
    """The word after the noun, stemmed, where a modifier may stand before the noun ("five
    known moons": "moon")."""


def quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity stated in `text` (a sentence or a short passage)."""
    return tuple(dict.fromkeys(stated.quantity for stated in _read(text)))


# Korean counters and units (case folded) -> (base unit, kind, factor); a counter not listed
# is its own unit and kind (3권 is compared with books only).
_KOREAN_UNITS: dict[str, tuple[str, str, float]] = {
    "개월": ("month", "duration", 1.0), "달": ("month", "duration", 1.0),
    "주": ("day", "duration", 7.0), "주일": ("day", "duration", 7.0),
    "일": ("day", "duration", 1.0), "시간": ("hour", "duration", 1.0),
    "분": ("hour", "duration", 1 / 60), "초": ("hour", "duration", 1 / 3600),
    "세기": ("year", "duration", 100.0), "명": ("person", "count", 1.0),
    "인": ("person", "count", 1.0), "퍼센트": ("%", "share", 1.0), "프로": ("%", "share", 1.0),
    "원": ("원", "money", 1.0), "달러": ("$", "money", 1.0), "유로": ("€", "money", 1.0),
    "킬로미터": ("m", "length", 1e3), "미터": ("m", "length", 1.0),
    "센티미터": ("m", "length", 1e-2), "킬로그램": ("kg", "mass", 1.0),
    "그램": ("kg", "mass", 1e-3), "톤": ("kg", "mass", 1e3), "살": ("age", "age", 1.0),
    "세": ("age", "age", 1.0), "번": ("time", "count", 1.0), "회": ("time", "count", 1.0),
    "차례": ("time", "count", 1.0), "리터": ("l", "volume", 1.0), "l": ("l", "volume", 1.0),
    "밀리리터": ("l", "volume", 1e-3), "ml": ("l", "volume", 1e-3),
}  # fmt: skip


def _read_korean(text: str) -> list[Stated]:
    """The quantities of Korean text, read from its morphemes (see `korean_numbers`)."""
    found = []
    for number in korean_numbers.numbers(text):
        unit, kind, factor = _KOREAN_UNITS.get(number.counter) or _UNITS.get(
            number.counter, (number.counter or "number", number.counter or "number", 1.0)
        )
        value = number.value * factor
        if number.counter in ("년", "") and _YEAR.match(f"{number.value:g}"):
            unit, kind = "number", "year"  # 2020년 is a year, as 2020 is in English
        elif number.counter == "년":
            unit, kind = "year", "duration"
        found.append(Stated(Quantity(round(value, 6), unit, kind), " ".join(number.words)))
    return found


def _in_word(text: str, start: int, end: int) -> bool:
    """Whether the number at `text[start:end]` is joined by a hyphen to letters."""
    before = start > 0 and text[start - 1] in _HYPHENS and text[start - 2 : start - 1].isalpha()
    after = end < len(text) and text[end] in _HYPHENS and text[end + 1 : end + 2].isalpha()
    return before or after


@lru_cache(maxsize=65536)
def _read(text: str) -> tuple[Stated, ...]:
    """Each quantity stated in `text`, with the words that state it."""
    rest, found_times = _times(text)
    times = [Stated(quantity, words) for quantity, words in found_times]
    if korean.has_hangul(text):
        return tuple([*times, *_read_korean(rest)])
    found = times
    for m in _QUANTITY.finditer(rest):
        number = m.group("num").strip()
        words = number.casefold().split()
        if words[-1] == "one":
            before = rest[: m.start("num")].casefold().split()[-1:]
            after = rest[m.end("num") :].casefold().split()[:1]
            if (before and before[0] in _NOT_A_COUNT) or after in (["of"], ["another"]):
                continue
        value = _value(number)
        if value is None:
            continue
        if m.group("scale"):
            value *= _SCALES[m.group("scale").casefold()]
        unit, kind, factor, _ = _unit(m)
        value *= factor
        if kind == "number" and _YEAR.match(number):
            kind = "year"  # 1989 is compared with years, not with counts
        if unit == "°F":
            unit, value = "°C", (value - 32.0) * 5.0 / 9.0
        noun = (m.group("unit") or "").casefold()
        counted = _counted(noun) if kind == "number" else None
        then = _counted(_next_word(rest[m.end() :])) if counted is not None else None
        in_word = _in_word(rest, m.start("num"), m.end("num"))
        found.append(
            Stated(Quantity(round(value, 6), unit, kind), m.group(0), in_word, counted, then)
        )
    return tuple(found)


def _counted(word: str) -> str | None:
    """A word as the noun of a count: stemmed; None for a stop word or no word."""
    return stem(word) if word.isalpha() and word not in STOP_WORDS else None


def _next_word(text: str) -> str:
    """The word that opens `text` after spaces ("" where punctuation comes first)."""
    m = _NEXT_WORD.match(text)
    return m.group(1).casefold() if m else ""


def same_value(a: float, b: float) -> bool:
    """Whether two values are one: equal for whole numbers below 10,000 (counts and years: 1989
    is not 1998), else within a rounding's tolerance of 0.5% (13,000 miles stated as 20,921 km)."""
    if max(abs(a), abs(b)) < 1e4 and a.is_integer() and b.is_integer():
        return a == b
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b))


def _same(a: Quantity, b: Quantity) -> bool:
    """Whether `b` states `a`: the same value in the same base unit, or in any unit when `a`
    is a plain number ("now 24" is stated by "24 years old")."""
    if a.unit != b.unit and a.unit != "number":
        return False
    return same_value(a.value, b.value)


def _comparable(a: Stated, b: Stated) -> bool:
    """Whether `b` states the same sort of thing as `a` (so a different value contradicts): a
    quantity of the same kind, and for a plain count, a count of the same noun."""
    if a.quantity.kind != b.quantity.kind:
        return False
    if a.quantity.kind != "number" or a.noun == b.noun:
        return True
    # One of the two modified: "two moons" against "five known moons".
    return (a.noun is not None and a.noun == b.then) or (b.noun is not None and b.noun == a.then)


class QuantitySignals(NamedTuple):
    found: float
    """The share of the claim's quantities the context states (1.0 when it has none)."""
    words: tuple[str, ...]
    """The words of the claim that state a quantity the context states too ("100 degrees
    Celsius" against "100 °C"): found, whatever their spelling there."""
    mismatch: float
    """1.0 when a quantity of the claim is not in the context and one of the two sentences that
    best match its other words states another of its kind; else 0.0."""


def quantity_signals(claim: str, sentences: Sequence[str], best: Sequence[int]) -> QuantitySignals:
    """Compare the claim's quantities with the context's `sentences`; `best` holds the indexes
    of the sentences that best match the claim's words other than numbers."""
    read = _read(claim)
    if not read:
        return QuantitySignals(1.0, (), 0.0)
    wanted = {c.quantity: c for c in read}
    stated = [q for s in sentences for q in quantities(s)]
    missing = [c for q, c in wanted.items() if not any(_same(q, s) for s in stated)]
    lost = {c.quantity for c in missing}
    words = tuple(w for c in read if c.quantity not in lost for w in c.words.split())
    near = [s for i in best for s in _read(sentences[i])]
    if korean.has_hangul(claim) or any(korean.has_hangul(s) for s in sentences):
        # Korean: every value of the kind is a rival; its counters name what they count (3권
        # is compared with books only).
        contradicted = any(c.quantity.kind == s.quantity.kind for c in missing for s in near)
    else:
        rivals = [
            s for s in near if not s.in_word and not any(_same(q, s.quantity) for q in wanted)
        ]
        contradicted = any(_comparable(c, s) for c in missing if not c.in_word for s in rivals)
    return QuantitySignals(1.0 - len(missing) / len(wanted), words, 1.0 if contradicted else 0.0)
