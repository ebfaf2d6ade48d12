"""Text from files, datasets, plugins and servers made safe to print on a terminal: no escape
sequences, no control characters, no line breaks and no reordering of the line, and a bounded
length.

Every line a command prints that holds such text (an id, a claim, an error, a column's name, a
file's name, a model's name) passes it through `printable`, so a dataset cannot clear the
screen, recolour it, reorder a line (U+202E) or forge a line of its own (a newline, then
`mean recall 1.0000`).
"""

from __future__ import annotations

import re

_CONTROL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""C0 and C1 controls (ESC, line breaks and tab among them), the line and paragraph
separators, and the marks, embeddings, overrides and isolates that reorder text."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"


def printable(text: str, limit: int | None = None, *, lines: bool = False) -> str:
    """`text` with each control character written as an escape (`\\x1b`, `\\n`, `\\u202e`),
    cut to `limit` characters (with an ellipsis) when one is given. With `lines`, the text's
    line breaks are kept (a message of several lines) and each line is escaped."""
    if lines:
        return "\n".join(printable(line, limit) for line in text.split("\n"))
    shown = _CONTROL.sub(_escape, text)
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown
