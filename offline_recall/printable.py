"""Text from files, datasets, plugins and servers made safe to print on a terminal: no escape
sequences, no control characters, no line breaks and no reordering of the line, and a bounded
length.

Every line a command prints that holds such text (an id, a claim, an error, a column's name, a
file's name, a model's name) passes it through `printable`, so a dataset cannot clear the
screen, recolour it, reorder a line (U+202E) or forge a line of its own (a newline, then
`mean recall 1.0000`).

Text is cut to its limit before it is escaped, so what printing costs never grows with the
text: a column name of a hundred megabytes of control characters is escaped a few thousand
characters at a time, at most.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


SHOWN = 4000
"""Characters of one printed line of text from data, at most: longer text is cut."""

LINES_SHOWN = 200
"""Lines of a message of several lines printed, at most."""

NAME_SHOWN = 80
"""Characters of one name from data (a column, a field, an id) quoted in a message."""

NAMES_SHOWN = 20
"""Names a message lists, at most; the others are counted."""


def clipped(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last an ellipsis, when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(names: Sequence[str], *, quoted: bool = False) -> str:
    """Names from data for a message: the first `NAMES_SHOWN`, each cut to `NAME_SHOWN`
    characters (`quoted`: written as Python writes a string), and how many more there are."""
    shown = [clipped(n, NAME_SHOWN) for n in names[:NAMES_SHOWN]]
    text = ", ".join(repr(n) for n in shown) if quoted else ", ".join(shown)
    more = len(names) - NAMES_SHOWN
    return f"{text} and {more} more" if more > 0 else text


def printable(text: str, limit: int = SHOWN, *, lines: bool = False) -> str:
    """`text` with each control character written as an escape (`\\x1b`, `\\n`, `\\u202e`),
    cut to `limit` characters (with an ellipsis). It is cut before it is escaped, so escaping
    costs what the shown text does, however long `text` is. With `lines`, the text's line
    breaks are kept (a message of several lines, at most `LINES_SHOWN` of them) and each line
    is escaped and cut."""
    if lines:
        cap = (limit + 1) * LINES_SHOWN
        kept = text[:cap].split("\n", LINES_SHOWN)
        more = len(kept) > LINES_SHOWN or len(text) > cap
        escaped = [printable(line, limit) for line in kept[:LINES_SHOWN]]
        return "\n".join([*escaped, "…"] if more else escaped)
    head = text[: limit + 1]  # escaping never shortens: what is past this is never shown
    shown = _CONTROL.sub(_escape, head)
    if len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown
