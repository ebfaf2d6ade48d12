"""Text from files and servers made safe to print on a terminal: no escape sequences, no
control characters, and a bounded length."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (ESC among them) but tab and newline, and the bidi overrides."""


def printable(text: str, limit: int | None = None) -> str:
    """`text` with each control character written as an escape (`\\x1b`), cut to `limit`
    characters (with an ellipsis) when one is given."""
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                         else f"\\u{ord(m.group()):04x}", text)  # fmt: skip
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown
