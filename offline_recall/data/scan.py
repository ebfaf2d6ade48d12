"""The one pass over an input file: the file is opened once and its bytes read once, each
added to a sha256 and to a copy (`InputCopy`) as it passes; the same pass counts its records
and keeps a table's header and its first records (they detect the field names and are surveyed
for a scorable row). The rows a run scores are read from the copy: the bytes it hashed.
A Parquet file is hashed and copied in the same way, and counted from its metadata."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from .hashing import HashingReader
from .input_copy import InputCopy
from .readers import (
    InputFormat,
    Record,
    columns_once,
    parquet_file,
    refuse_large_document,
    text_records,
)
from .version import FileStamp

HEAD = 1000
"""Records kept from the pass: those whose keys detect the field names, and the first rows a
survey reads."""


@dataclass(frozen=True)
class Scan:
    """What the one pass over a dataset file found, and the bytes it read."""

    sha256: str
    size: int
    """The file's bytes, as hashed."""
    total: int
    """How many records the file holds, counted as its reader reads them."""
    columns: list[str] | None
    """A table's columns (CSV's header, Parquet's schema); None for JSON."""
    head: tuple[Record, ...]
    """The first `HEAD` records (none for Parquet, whose rows are read in batches)."""
    copy: InputCopy
    """The bytes hashed, which the rows are read from."""
    opened: FileStamp
    """The file as it was opened, before any byte was read."""
    delimiter: str | None = None
    """A CSV file's delimiter, as given or as its header line shows it."""


def scan(fmt: InputFormat, path: Path, delimiter: str | None = None) -> Scan:
    """Open `path` once and read it as `fmt`: its digest, count, header and first records (a
    CSV file split at `delimiter`, else at the one its header shows), and a copy of its
    bytes."""
    copy = InputCopy()
    with path.open("rb") as f:
        opened = FileStamp.of(os.fstat(f.fileno()))
        raw = HashingReader(f, copy=copy)
        if fmt == InputFormat.PARQUET:
            digest = raw.sha256()
            copy.finish()
            parquet = parquet_file(path, copy.open())
            names = columns_once(parquet.schema_arrow.names, path.name, "the schema")
            total = int(parquet.metadata.num_rows)
            return Scan(digest, raw.size, total, names, (), copy, opened)
        if fmt == InputFormat.JSON:
            refuse_large_document(opened.size, path.name)  # before reading any of it
        found = text_records(fmt, io.BufferedReader(raw), path.name, delimiter)
        head = tuple(islice(found.records, HEAD))
        total = len(head) + sum(1 for _ in found.records)
        digest = raw.sha256()
        copy.finish()
        return Scan(digest, raw.size, total, found.columns, head, copy, opened, found.delimiter)
