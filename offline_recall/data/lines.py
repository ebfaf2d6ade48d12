"""The lines of a text file, read within a limit: no line, CSV record or JSON document is ever
held whole past it, however large the file and however few its line breaks.

A JSON Lines line longer than `MAX_LINE_BYTES` is that row's error (read past, never kept); a
CSV record (the header among them) longer than it (see `csv_text.CsvText`), or a JSON document
longer than `MAX_DOCUMENT_BYTES`, is refused in one line. The limits are read when a file is
read, so a test may lower them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, NamedTuple

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest line of JSON Lines, and the longest CSV record (its line breaks included), in
bytes: far past any row a model judges, and small enough that reading one stays within a few
hundred MB."""

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""The largest `.json` file: a JSON array is parsed whole (larger data is JSON Lines)."""

_BLOCK = 1 << 20
_LONE_CR = re.compile(rb"(?<=\r)(?!\n)")


class LongLine(NamedTuple):
    """A line longer than `MAX_LINE_BYTES`, read past without being kept."""

    size: int
    """Its bytes, its line break included."""


class _Pending:
    """The line being read: its pieces while it is within the limit, and its size."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size <= self._limit:
            self._parts.append(piece)
        else:
            self._parts.clear()

    def take(self) -> bytes | LongLine:
        line = b"".join(self._parts) if self.size <= self._limit else LongLine(self.size)
        self._parts, self.size = [], 0
        return line


def line_size(line: bytes | LongLine) -> int:
    return line.size if isinstance(line, LongLine) else len(line)


def byte_lines(f: IO[bytes], offset: int = 0) -> Iterator[tuple[int, bytes | LongLine]]:
    """Each line with its byte offset, split where text mode splits (`\\n`, `\\r\\n`, `\\r`),
    its line break kept; a line longer than `MAX_LINE_BYTES` is a `LongLine`."""
    line = _Pending(MAX_LINE_BYTES)
    cr = False  # the pending line ends with `\r`: a `\n` read next belongs to it
    while chunk := f.readline(_BLOCK):
        if cr:
            cr = False
            if chunk.startswith(b"\n"):
                line.add(b"\n")
                chunk = chunk[1:]
            size = line.size
            yield offset, line.take()
            offset += size
        pieces = _LONE_CR.split(chunk)
        rest = pieces.pop()
        if not rest and pieces:  # the chunk ends with `\r`: wait for the next byte
            rest, cr = pieces.pop(), True
        for piece in pieces:  # each ends with a lone `\r`
            line.add(piece)
            size = line.size
            yield offset, line.take()
            offset += size
        line.add(rest)
        if rest.endswith(b"\n"):
            size = line.size
            yield offset, line.take()
            offset += size
    if line.size:
        yield offset, line.take()


def is_blank(line: bytes | LongLine) -> bool:
    """Whether a line of a text file holds no record (only whitespace); every reader and
    counter of lines decides it the same way. A line too long to read is a record (its
    error)."""
    return not isinstance(line, LongLine) and not line.decode("utf-8", "replace").strip()


def mib(size: int) -> str:
    """A limit in bytes as a person reads it: `64 MiB`, or bytes below one MiB."""
    return f"{size / (1 << 20):g} MiB" if size >= 1 << 20 else f"{size} bytes"
