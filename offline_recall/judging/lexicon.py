"""Word tables packaged with the judge: one set of related words per line."""

from __future__ import annotations

from importlib import resources


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
