"""Raw records of each file format, in order, with their positions; no field names yet.

The format comes from the file's extension.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from ..errors import DatasetError


class InputFormat(StrEnum):
    """A dataset file's format, named by its extension."""

    JSONL = "JSON Lines"
    JSON = "JSON array"
    CSV = "CSV"
    PARQUET = "Parquet"
    RAY = "Ray Dataset"
    """Rows of a `ray.data.Dataset`: typed columns, read as Parquet's are."""


EXTENSIONS = {
    ".jsonl": InputFormat.JSONL,
    ".ndjson": InputFormat.JSONL,
    ".json": InputFormat.JSON,
    ".csv": InputFormat.CSV,
    ".parquet": InputFormat.PARQUET,
}


def input_format(path: Path) -> InputFormat:
    """The format named by the file's extension."""
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(EXTENSIONS)
        raise DatasetError(f"{path.name}: unknown data format {path.suffix!r}; use one of {known}")
    return fmt


Record = tuple[int, dict[str, Any] | str]
"""A record's position and its keys, or the reason it is not a record."""


QUOTED = 24
"""Characters of a broken line quoted at its start, at its end, and around the error."""


def json_error(error: json.JSONDecodeError, line: bool = True) -> str:
    """The whole of a JSON error: what is wrong and where (the column, and the line)."""
    where = f"line {error.lineno}, column {error.colno}" if line else f"column {error.colno}"
    return f"{error.msg.removesuffix(' at')} at {where}"


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _shown(text: str) -> str:
    """`text` between backticks, control characters written as escapes."""
    return "`" + _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "`"


def line_error(error: json.JSONDecodeError, text: str) -> str:
    """Why one line is not JSON: what the parser saw and where, and the line's start and end
    quoted, so a truncated line reads as one (`Expecting ',' delimiter at column 1` of the
    next line is how json words a missing `}`)."""
    what = error.msg.removesuffix(" at")
    if error.pos >= len(text):
        saw = (
            f"the line ends before the JSON does ({what} at its end, column {error.colno}: "
            "is a closing } or ] missing?)"
        )
    else:
        near = text[error.pos : error.pos + QUOTED]
        saw = f"{what} at column {error.colno}, where it reads {_shown(near)}"
    if len(text) <= 2 * QUOTED:
        return f"{saw}; the line: {_shown(text)}"
    return f"{saw}; the line starts {_shown(text[:QUOTED])} and ends {_shown(text[-QUOTED:])}"


def jsonl_record(text: str) -> dict[str, Any] | str:
    """One JSON Lines record's keys, or the reason it is not a record."""
    line = text.rstrip("\r\n")
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        return f"not valid JSON: {line_error(e, line)}"
    return record if isinstance(record, dict) else "expected a JSON object"


def jsonl_lines(f: TextIO, first: int = 1) -> Iterator[Record]:
    """The records of JSON Lines text, numbered by line from `first` (blank lines count)."""
    for number, text in enumerate(f, start=first):
        if text.strip():
            yield number, jsonl_record(text)


def jsonl_records(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8", errors="replace") as f:
        yield from jsonl_lines(f)


def json_array(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as e:
        raise DatasetError(f"{path.name}: not valid JSON: {json_error(e)}") from e
    if not isinstance(data, list):
        raise DatasetError(
            f"{path.name}: expected a JSON array of objects; one object per line is .jsonl"
        )
    return data


def json_records(path: Path) -> Iterator[Record]:
    for number, item in enumerate(json_array(path), start=1):
        yield number, item if isinstance(item, dict) else "expected a JSON object"


def csv_reader(f: Any, fieldnames: Sequence[str] | None = None) -> csv.DictReader[str]:
    """Rows of CSV text as dicts; the header is the first row unless `fieldnames` are given."""
    csv.field_size_limit(sys.maxsize)  # a row's context can be far longer than csv's default
    return csv.DictReader(f, fieldnames=fieldnames)


def csv_rows(reader: csv.DictReader[str], first: int = 1) -> Iterator[Record]:
    """The records a CSV reader gives, numbered from `first` (header excluded)."""
    number = first - 1
    while True:
        number += 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            yield number, f"not valid CSV ({e})"
            continue
        if None in record:
            yield number, "has more cells than the header has columns"
            continue
        yield number, {k: (v if v != "" else None) for k, v in record.items()}


def csv_records(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as f:
        yield from csv_rows(csv_reader(f))


def parquet_file(path: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except Exception as e:
        raise DatasetError(f"{path.name}: not a readable Parquet file ({e})") from e


def parquet_records(path: Path) -> Iterator[Record]:
    number = 0
    for batch in parquet_file(path).iter_batches(batch_size=1024):
        for record in batch.to_pylist():
            number += 1
            yield number, record


def decode_context_cell(cell: str, separator: str | None) -> list[str]:
    """A context given as text: `separator`-joined chunks, a JSON list, or one chunk.

    Raises ValueError, saying why, when a cell starting with `[` is not a JSON list of strings.
    """
    if separator:
        return [c.strip() for c in cell.split(separator) if c.strip()]
    text = cell.strip()
    if not text:
        return []
    if not text.startswith("["):
        return [cell]
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError(f"it holds a JSON {type(value).__name__}")
    if not all(isinstance(c, str) for c in value):
        raise ValueError("an item is not a string")
    return value


def records(fmt: InputFormat, path: Path) -> Iterator[Record]:
    """The raw records of a `fmt` file, in order, with their positions."""
    readers = {
        InputFormat.JSONL: jsonl_records,
        InputFormat.JSON: json_records,
        InputFormat.CSV: csv_records,
        InputFormat.PARQUET: parquet_records,
    }
    return readers[fmt](path)
