"""Word tables of the judge: function words, a light stemmer, and the packaged tables of related
words (one set of related words per line)."""

from __future__ import annotations

from importlib import resources

# Function words carry no evidence of support.
_STOP = """a an the of in on at to for and or but is are was were be been being by with as from
that this these those it its his her their he she they we you i not no has have had also which
who whom s t"""
STOP_WORDS = frozenset(_STOP.split())
_SUFFIXES = ("ing", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """The word without one common suffix ("counts": "count"), kept whole when short."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def related_words(name: str) -> dict[str, frozenset[str]]:
    """Each word of the packaged table `name` (a text file beside this module: one set of
    related words per line, `#` comments), with the words it shares a line with."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    table: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        words = line.split()
        for word in words:
            table.setdefault(word, set()).update(w for w in words if w != word)
    return {word: frozenset(others) for word, others in table.items()}
