"""The Korean reading of the judge's word signals: morphemes, names, numbers, negation."""

from __future__ import annotations

import subprocess
import sys

from offline_recall.judging import korean, korean_numbers
from offline_recall.judging.quantities import quantities
from offline_recall.judging.signals import lexical_signals
from offline_recall.text import split_sentences


def test_hangul_is_what_takes_the_korean_path() -> None:
    assert korean.has_hangul("직원은 3개월")
    assert not korean.has_hangul("Employees have 3 months; 東京")


def test_particles_and_endings_come_apart_from_their_words() -> None:
    assert korean.content_words("직원은 수습 기간을 거쳤다") == ["직원", "수습", "기간", "거치"]
    assert korean.content_words("직원이 수습기간을 거칩니다") == ["직원", "수습", "기간", "거치"]


def test_names_are_proper_nouns_written_spaced_or_not() -> None:
    assert "서울" in korean.names("김 대리는 서울에서 일한다.")
    assert korean.states_name("삼성 전자가 발표했다.", "삼성전자")


def test_numbers_are_read_with_their_counters() -> None:
    text = "세 명이 3개월 동안 3만 원과 1,000원을 냈다"
    read = {(n.value, n.counter) for n in korean_numbers.numbers(text)}
    assert read == {(3.0, "명"), (3.0, "개월"), (30000.0, "원"), (1000.0, "원")}
    assert korean_numbers.numbers("이 법은 한 사람을 위한다") == []  # numerals with no counter


def test_korean_counters_are_units() -> None:
    assert {q.kind for q in quantities("3개월 동안 20일, 2020년에")} == {"duration", "year"}
    assert quantities("세 명") == quantities("3명")


def test_negation_denies_the_predicate_not_the_topic() -> None:
    words, inside = korean.negated("수습 기간에는 연차가 없다.")
    assert {words[i] for i in inside} & {"수습", "기간", "연차"} == {"연차"}
    for text in ("가지 않았다", "못 갔다", "안 갔다", "가지 못했다"):
        words, inside = korean.negated(text)
        assert "가" in {words[i] for i in inside}, text
    words, inside = korean.negated("하지 않을 수 없다")  # two negations affirm
    assert not inside


def test_a_paraphrase_in_other_endings_keeps_every_word() -> None:
    signals = lexical_signals(
        "신입 직원은 처음 3개월 동안 수습 기간을 거친다.", "3개월간 수습 기간을 거친다."
    )
    assert signals["missing"] <= 1.0 and signals["numbers"] == 1.0 and signals["polarity"] == 0.0


def test_korean_sentences_end_at_final_endings() -> None:
    assert split_sentences("정부가 발표했다.법무부는 제출했어요. 네!") == [
        "정부가 발표했다.",
        "법무부는 제출했어요.",
        "네!",
    ]
    assert split_sentences("It is 3.5 m.Next") == ["It is 3.5 m.Next"]


def test_the_analyser_loads_only_for_korean_text() -> None:
    code = (
        "import sys, offline_recall\n"
        "from offline_recall.judging.signals import lexical_signals\n"
        "lexical_signals('Water boils at 100 degrees.', 'Water boils at 100 degrees.')\n"
        "assert 'mecab_ko' not in sys.modules, 'loaded for English'\n"
        "lexical_signals('물은 100도에서 끓는다.', '물이 100도에서 끓어요.')\n"
        "assert 'mecab_ko' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
