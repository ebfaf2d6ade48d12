"""One pass over an input file before any scoring: the sha256 of its bytes, how many records it
holds, a table's header, and its first records (they detect the field names and are surveyed
for a scorable row). A Parquet file is hashed in one pass and counted from its metadata."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from .readers import (
    InputFormat,
    Record,
    columns_once,
    parquet_file,
    refuse_large_document,
    text_records,
)

HEAD = 1000
"""Records kept from the pass: those whose keys detect the field names, and the first rows a
survey reads."""

_BLOCK = 1 << 20


class HashingReader(io.RawIOBase):
    """A binary file read through, each byte added to a sha256 as it passes; with `limit`, no
    byte past it is read (the file ends there)."""

    def __init__(self, raw: IO[bytes], limit: int | None = None) -> None:
        self._raw = raw
        self._digest = hashlib.sha256()
        self._left = limit
        self.size = 0
        """Bytes read so far."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        wanted = len(view) if self._left is None else min(len(view), self._left)
        data = self._raw.read(wanted)
        view[: len(data)] = data
        self._digest.update(data)
        self.size += len(data)
        if self._left is not None:
            self._left -= len(data)
        return len(data)

    def sha256(self) -> str:
        """The digest of the whole file (to `limit`): what has not been read yet is read
        first."""
        while self.read(_BLOCK):
            pass
        return self._digest.hexdigest()


@dataclass(frozen=True)
class Scan:
    """What one pass over a dataset file found."""

    sha256: str
    size: int
    """The file's bytes, as hashed."""
    total: int
    """How many records the file holds, counted as its reader reads them."""
    columns: list[str] | None
    """A table's columns (CSV's header, Parquet's schema); None for JSON."""
    head: tuple[Record, ...]
    """The first `HEAD` records (none for Parquet, whose rows are read in batches)."""
    delimiter: str | None = None
    """A CSV file's delimiter, as given or as its header line shows it."""


def scan(fmt: InputFormat, path: Path, delimiter: str | None = None) -> Scan:
    """Read `path` once as `fmt`: its digest, count, header and first records (a CSV file
    split at `delimiter`, else at the one its header shows)."""
    if fmt == InputFormat.PARQUET:
        with path.open("rb") as f:
            raw = HashingReader(f)
            digest = raw.sha256()
        parquet = parquet_file(path)
        names = columns_once(parquet.schema_arrow.names, path.name, "the schema")
        return Scan(digest, raw.size, int(parquet.metadata.num_rows), names, ())
    if fmt == InputFormat.JSON:
        refuse_large_document(path.stat().st_size, path.name)  # before reading any of it
    with path.open("rb") as f:
        raw = HashingReader(f)
        found = text_records(fmt, io.BufferedReader(raw), path.name, delimiter)
        head = tuple(islice(found.records, HEAD))
        total = len(head) + sum(1 for _ in found.records)
        return Scan(raw.sha256(), raw.size, total, found.columns, head, found.delimiter)
