"""CSV text: its lines within the record limit, its delimiter, and its records in order.

A CSV file is split where spreadsheets split it when they export (a comma, a semicolon or a
tab, read from its header line) unless a delimiter is given; no record, the header among them,
is read past `lines.MAX_LINE_BYTES`.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any

from ..errors import DatasetError
from . import lines
from .lines import LongLine, byte_lines, line_size, mib

_BOM = b"\xef\xbb\xbf"


class CsvText:
    """CSV bytes as lines of text for a csv reader: decoded as a whole file is (a byte order
    mark at its start dropped, bytes that are not UTF-8 kept as `surrogateescape` writes them),
    split where it splits lines, and never more than `lines.MAX_LINE_BYTES` for one record: a longer
    one is refused, in one line. `first` is the number of the first record (0: the header);
    `record` says that one was read. `consumed` is the offset past the lines read."""

    def __init__(self, f: IO[bytes], name: str, offset: int = 0, first: int = 0) -> None:
        self._lines = byte_lines(f, offset)
        self._name = name
        self._number = first
        self._size = 0
        self._start = offset == 0
        self._peeked: str | None = None
        self.consumed = offset

    def __iter__(self) -> CsvText:
        return self

    def peek(self) -> str:
        """The next line, left to be read; empty at the end."""
        if self._peeked is None:
            try:
                self._peeked = self._read()
            except StopIteration:
                return ""
        return self._peeked

    def __next__(self) -> str:
        if self._peeked is not None:
            line, self._peeked = self._peeked, None
            return line
        return self._read()

    def _read(self) -> str:
        offset, line = next(self._lines)
        self._size += line_size(line)
        if isinstance(line, LongLine) or self._size > lines.MAX_LINE_BYTES:
            what = "the header" if self._number == 0 else f"row {self._number}"
            raise DatasetError(
                f"{self._name}: {what} is longer than {mib(lines.MAX_LINE_BYTES)} of CSV; a quote "
                "opened and never closed reads on to the end of the file: check the quotes, "
                "or split the text"
            )
        self.consumed = offset + len(line)
        if self._start:
            self._start = False
            line = line.removeprefix(_BOM)
        return line.decode("utf-8", "surrogateescape")

    def record(self) -> None:
        """A record was read: the next one's size counts from here."""
        self._number += 1
        self._size = 0


DELIMITERS = {",": "commas", ";": "semicolons", "\t": "tabs"}
"""The delimiters a CSV file's header is read for, as spreadsheets export them, in order of
preference on a tie, each in words."""


def delimiter_words(delimiter: str) -> str:
    """A delimiter as messages name it: `semicolons`, or the character given (`'|'`)."""
    return DELIMITERS.get(delimiter) or repr(delimiter)


def delimiter_counts(text: str) -> dict[str, int]:
    """How often each of `DELIMITERS` occurs in `text` outside double quotes."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    return counts


def sniff_delimiter(header: str) -> str:
    """The delimiter of a CSV file whose header line is `header`: the one of `DELIMITERS`
    it holds most often outside quotes (a comma when it holds none)."""
    counts = delimiter_counts(header)
    return max(DELIMITERS, key=lambda d: (counts[d], -list(DELIMITERS).index(d)))


def csv_reader(
    text: CsvText, fieldnames: Sequence[str] | None = None, delimiter: str = ","
) -> csv.DictReader[str]:
    """Rows of CSV text as dicts; the header is the first row unless `fieldnames` are given
    (it is read here, as a record of its own)."""
    csv.field_size_limit(sys.maxsize)  # a cell is bounded by its record's limit (`CsvText`)
    reader = csv.DictReader(text, fieldnames=fieldnames, delimiter=delimiter)
    if fieldnames is None:
        _ = reader.fieldnames
        text.record()
    return reader


def csv_rows(
    reader: csv.DictReader[str], text: CsvText, first: int = 1
) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """The records a CSV reader of `text` gives, numbered from `first` (header excluded)."""
    number = first - 1
    while True:
        number += 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            text.record()
            yield number, f"not valid CSV ({e})"
            continue
        text.record()
        if None in record:
            yield number, "has more cells than the header has columns"
            continue
        yield number, {k: (v if v != "" else None) for k, v in record.items()}
