"""Raw records of each file format, in order, with their positions; no field names yet.

The format comes from the file's extension.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, NamedTuple

from ..errors import DatasetError
from ..printable import NAME_SHOWN, NAMES_SHOWN, clipped, listed
from . import lines
from .csv_text import CsvText, csv_reader, csv_rows, sniff_delimiter
from .lines import LongLine, byte_lines, is_blank, mib

Record = tuple[int, dict[str, Any] | str]
"""A record's position and its keys, or the reason it is not a record."""


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


MAX_DEPTH = 100
"""Levels of nesting a record may have; deeper values are that row's error, never a crash."""

_UNDECODED = re.compile("[\udc80-\udcff]")
"""What a byte that is not UTF-8 becomes when a file is read with `surrogateescape`."""


def refused_value(record: Any) -> str | None:
    """Why a decoded record cannot be read, or None: nested deeper than `MAX_DEPTH`, or text
    holding bytes that are not UTF-8."""
    stack: list[tuple[Any, int]] = [(record, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _UNDECODED.search(value):
                return "holds bytes that are not valid UTF-8 text"
            continue
        if not isinstance(value, dict | list | tuple):
            continue
        if depth > MAX_DEPTH:
            return f"a value is nested more than {MAX_DEPTH} levels deep"
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items)
    return None


def too_long_number() -> str:
    """Why a JSON number Python will not convert cannot be read."""
    return f"a number has more than {sys.get_int_max_str_digits()} digits"


def loads(text: str) -> Any:
    """`json.loads`, with nesting too deep for the parser, or an integer longer than Python
    converts, raised as a ValueError (not a `JSONDecodeError`) saying so in one line."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"a value is nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        raise ValueError(too_long_number()) from None


class Unreadable(NamedTuple):
    """A record that could not be parsed (an item of a JSON array, a line of JSON Lines),
    with the reason."""

    reason: str


def jsonl_record(text: str) -> dict[str, Any] | str:
    """One JSON Lines record's keys, or the reason it is not a record."""
    line = text.rstrip("\r\n").removeprefix("\ufeff")
    try:
        record = loads(line)
    except json.JSONDecodeError as e:
        return f"not valid JSON: {line_error(e, line)}"
    except ValueError as e:
        return str(e)
    return record if isinstance(record, dict) else "expected a JSON object"


def jsonl_texts(f: IO[bytes], first: int = 1) -> Iterator[tuple[int, str | Unreadable]]:
    """Each non-blank line of JSON Lines bytes, numbered from `first` (blank lines count),
    decoded; an `Unreadable` for a line that is not valid UTF-8 or is too long to read."""
    for number, (_, raw) in enumerate(byte_lines(f), start=first):
        if is_blank(raw):
            continue
        if isinstance(raw, LongLine):
            limit = mib(lines.MAX_LINE_BYTES)
            yield (
                number,
                Unreadable(f"the line is longer than {limit} ({raw.size} bytes): not read"),
            )
            continue
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError:
            yield number, Unreadable("the line is not valid UTF-8 text")


def jsonl_lines(f: IO[bytes], first: int = 1) -> Iterator[Record]:
    """The records of JSON Lines bytes, numbered by line from `first` (blank lines count)."""
    for number, text in jsonl_texts(f, first):
        if isinstance(text, Unreadable):
            yield number, text.reason
        else:
            yield number, jsonl_record(text)


def jsonl_count(path: Path) -> int:
    """How many records a JSON Lines file holds, counted as `jsonl_lines` reads them."""
    with path.open("rb") as f:
        return sum(1 for _ in jsonl_texts(f))


def _array_items(text: str) -> list[str]:
    """The source text of each item of the JSON array `text`, found without parsing it (so
    an item nested too deep for the parser is still one item). Assumes `text` is valid JSON
    that the parser refused only for its depth."""
    items: list[str] = []
    depth = 0
    start = None
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth == 2 and start is None:
                start = i
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 1 and start is not None:
            items.append(text[start:i])
            start = None
        if depth == 1 and start is None and not ch.isspace() and ch not in "[,]":
            start = i
        if depth == 0 and ch == "]" and start is not None:
            items.append(text[start:i])
            start = None
    return items


def json_array(path: Path) -> list[Any]:
    """The items of a JSON array file; an item nested too deep to parse is that item's error
    (an `Unreadable`), the rest still read."""
    with path.open("rb") as f:
        return json_items(json_document(f, path.name), path.name)


def refuse_large_document(size: int, name: str) -> None:
    """Refuse a JSON file of `size` bytes larger than `lines.MAX_DOCUMENT_BYTES`."""
    limit = lines.MAX_DOCUMENT_BYTES
    if size > limit:
        raise DatasetError(
            f"{name}: a JSON file is read whole, and this one is larger than {mib(limit)}; "
            "give its rows as JSON Lines (.jsonl, one object per line)"
        )


def json_document(f: IO[bytes], name: str) -> str:
    """The text of a JSON file read from `f`, as text mode reads it (a byte order mark at its
    start dropped, line breaks read as `\\n`); one larger than `lines.MAX_DOCUMENT_BYTES` is
    refused without being read whole."""
    data = f.read(lines.MAX_DOCUMENT_BYTES + 1)
    refuse_large_document(len(data), name)
    text = data.decode("utf-8-sig", "surrogateescape")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def json_items(text: str, name: str) -> list[Any]:
    """The items of the JSON array `text`, read from the file `name`, as `json_array` reads
    them."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{name}: not valid JSON: {json_error(e)}") from e
    except ValueError:  # an integer longer than Python converts: that item's error
        if not text.lstrip("\ufeff \t\r\n").startswith("["):
            raise DatasetError(f"{name}: cannot be read: {too_long_number()}") from None
        data = _each_item(text)
    except RecursionError:
        data = _each_item(text)
    if not isinstance(data, list):
        raise DatasetError(
            f"{name}: expected a JSON array of objects; one object per line is .jsonl"
        )
    return data


def _each_item(text: str) -> list[Any]:
    """The items of the JSON array `text` parsed one by one: an item the parser refuses as a
    whole (nested too deep, a number too long) is that item's error (an `Unreadable`)."""
    data: list[Any] = []
    for item in _array_items(text):
        try:
            data.append(loads(item))
        except ValueError as e:
            data.append(Unreadable(str(e)))
    return data


def json_item_records(items: list[Any]) -> Iterator[Record]:
    """The records of a JSON array's items, numbered from 1."""
    for number, item in enumerate(items, start=1):
        if isinstance(item, Unreadable):
            yield number, item.reason
        else:
            yield number, item if isinstance(item, dict) else "expected a JSON object"


def columns_once(columns: Sequence[str], name: str, what: str = "the header") -> list[str]:
    """A table's columns, refusing a column named twice (`what` names where they are)."""
    twice = sorted(c for c, n in Counter(columns).items() if n > 1)
    if twice:
        named = listed([repr(clipped(c, NAME_SHOWN)) for c in twice[: NAMES_SHOWN + 1]])
        raise DatasetError(
            f"{name}: {what} names {named} more than once; give each column its own name"
        )
    return list(columns)


class TextFile(NamedTuple):
    """A text file being read: its records and, for CSV, its columns and delimiter."""

    records: Iterator[Record]
    columns: list[str] | None = None
    delimiter: str | None = None


def text_records(
    fmt: InputFormat, f: IO[bytes], name: str, delimiter: str | None = None
) -> TextFile:
    """A text file's records read from `f`; a CSV file's delimiter is `delimiter`, else the
    one its header line holds most (see `sniff_delimiter`)."""
    if fmt == InputFormat.JSONL:
        return TextFile(jsonl_lines(f))
    if fmt == InputFormat.JSON:
        return TextFile(json_item_records(json_items(json_document(f, name), name)))
    text = CsvText(f, name)
    delimiter = delimiter or sniff_delimiter(text.peek())
    reader = csv_reader(text, delimiter=delimiter)
    columns = columns_once(reader.fieldnames or [], name)
    return TextFile(csv_rows(reader, text), columns, delimiter)


def csv_records(path: Path) -> Iterator[Record]:
    return records(InputFormat.CSV, path)


def parquet_file(path: Path, source: IO[bytes] | None = None) -> Any:
    """The Parquet file `path`, read from `source` when given (its bytes, as a copy holds
    them)."""
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path if source is None else source)
    except Exception as e:
        raise DatasetError(f"{path.name}: not a readable Parquet file ({e})") from e


def _as_text(value: Any) -> Any:
    """`value` with every `bytes` in it decoded as UTF-8 text; a byte that is not UTF-8 is kept
    as `surrogateescape` writes it, so that `refused_value` refuses the record, as it refuses
    such bytes in the other formats."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, dict):
        return {_as_text(k): _as_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_text(v) for v in value]
    return value


def _row_record(batch: Any, index: int) -> dict[str, Any] | str:
    try:
        record = batch.slice(index, 1).to_pylist()[0]
    except UnicodeDecodeError:
        return "holds bytes that are not valid UTF-8 text"
    found: dict[str, Any] = _as_text(record)
    return found


def batch_records(batch: Any) -> list[dict[str, Any] | str]:
    """The records of a batch of Parquet or Arrow rows, in order, with binary values read as
    text; a row whose text columns hold bytes that are not UTF-8 is the reason it cannot be
    read (the rest of the batch is read)."""
    try:
        found: list[dict[str, Any]] = batch.to_pylist()
    except UnicodeDecodeError:
        return [_row_record(batch, i) for i in range(batch.num_rows)]
    return [_as_text(record) for record in found]


def parquet_records(path: Path, source: IO[bytes] | None = None) -> Iterator[Record]:
    """The records of the Parquet file `path` (read from `source` when given), in order."""
    number = 0
    for batch in parquet_file(path, source).iter_batches(batch_size=1024):
        for record in batch_records(batch):
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
    value = loads(text)
    if not isinstance(value, list):
        raise ValueError(f"it holds a JSON {type(value).__name__}")
    if not all(isinstance(c, str) for c in value):
        raise ValueError("an item is not a string")
    return value


def records(fmt: InputFormat, path: Path) -> Iterator[Record]:
    """The raw records of a `fmt` file, in order, with their positions."""
    if fmt == InputFormat.PARQUET:
        yield from parquet_records(path)
        return
    with path.open("rb") as f:
        yield from text_records(fmt, f, path.name).records
