from __future__ import annotations

from offline_recall.text import pack, split_sentences


def words(text: str) -> int:
    return len(text.split())


def test_text_that_fits_is_returned_unchanged() -> None:
    text = "One sentence.\nAnother  one."
    assert pack(text, 100, words) == [text]


def test_splits_between_sentences_within_budget() -> None:
    text = "A b c d. E f g h. I j k l. M n o p."
    pieces = pack(text, 10, words)
    assert pieces == ["A b c d. E f g h.", "I j k l. M n o p."]


def test_a_sentence_too_long_alone_is_cut_between_words() -> None:
    text = " ".join(["word"] * 50) + "."
    pieces = pack(text, 10, words)
    assert all(words(p) <= 10 for p in pieces)
    assert " ".join(pieces) == text


def test_a_word_too_long_alone_is_cut_between_characters() -> None:
    def chars(text: str) -> int:
        return len(text)

    pieces = pack("x" * 1000, 100, chars)
    assert all(len(p) <= 100 for p in pieces)
    assert "".join(pieces) == "x" * 1000


def test_sentences() -> None:
    assert split_sentences("Hi there. How are you?  Fine!\nNext line") == [
        "Hi there.",
        "How are you?",
        "Fine!",
        "Next line",
    ]
