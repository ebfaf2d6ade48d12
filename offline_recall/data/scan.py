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

from ..errors import DatasetError
from .readers import (
    InputFormat,
    Record,
    csv_reader,
    csv_rows,
    json_item_records,
    json_items,
    jsonl_lines,
    parquet_file,
)

HEAD = 1000
"""Records kept from the pass: those whose keys detect the field names, and the first rows a
survey reads."""

_BLOCK = 1 << 20


class HashingReader(io.RawIOBase):
    """A binary file read through, each byte added to a sha256 as it passes."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._raw.read(len(view))
        view[: len(data)] = data
        self._digest.update(data)
        return len(data)

    def sha256(self) -> str:
        """The digest of the whole file: what has not been read yet is read first."""
        while block := self._raw.read(_BLOCK):
            self._digest.update(block)
        return self._digest.hexdigest()


@dataclass(frozen=True)
class Scan:
    """What one pass over a dataset file found."""

    sha256: str
    total: int
    """How many records the file holds, counted as its reader reads them."""
    columns: list[str] | None
    """A table's columns (CSV's header, Parquet's schema); None for JSON."""
    head: tuple[Record, ...]
    """The first `HEAD` records (none for Parquet, whose rows are read in batches)."""


def scan(fmt: InputFormat, path: Path) -> Scan:
    """Read `path` once as `fmt`: its digest, count, header and first records."""
    if fmt == InputFormat.PARQUET:
        with path.open("rb") as f:
            digest = HashingReader(f).sha256()
        parquet = parquet_file(path)
        names = list(parquet.schema_arrow.names)
        return Scan(digest, int(parquet.metadata.num_rows), names, ())
    with path.open("rb") as f:
        raw = HashingReader(f)
        buffered = io.BufferedReader(raw)
        columns: list[str] | None = None
        if fmt == InputFormat.JSONL:
            found = jsonl_lines(buffered)
        else:
            text = io.TextIOWrapper(
                buffered,
                encoding="utf-8-sig",
                errors="surrogateescape",
                newline="" if fmt == InputFormat.CSV else None,
            )
            if fmt == InputFormat.JSON:
                found = json_item_records(json_items(text.read(), path.name))
            else:
                reader = csv_reader(text)
                columns = _header(reader.fieldnames, path.name)
                found = csv_rows(reader)
        head = tuple(islice(found, HEAD))
        total = len(head) + sum(1 for _ in found)
        return Scan(raw.sha256(), total, columns, head)


def _header(names: Any, name: str) -> list[str]:
    """A CSV file's columns, refusing a column named twice."""
    columns = list(names or [])
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise DatasetError(
            f"{name}: the header names {', '.join(map(repr, twice))} more than once; "
            "give each column its own name"
        )
    return columns
