"""A dataset file as rows: each record a scorable row, or a row error saying why it is not."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import DatasetError
from .fields import Detection, FieldMap, detect
from .readers import (
    InputFormat,
    csv_reader,
    csv_records,
    decode_context_cell,
    input_format,
    json_array,
    jsonl_record,
    jsonl_records,
    parquet_file,
    records,
)

DETECTION_SAMPLE = 1000
"""Records of a JSON Lines file whose keys are read to detect its field names."""


class Row(BaseModel):
    """A scorable record: what was asked, the labelled answer, and the context retrieved for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    input: Any = None
    ground_truth: Any = None
    context: list[str]


class RowError(BaseModel):
    """A record that cannot be scored, with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    message: str


def _quoted(keys: tuple[str, ...]) -> str:
    return " or ".join(f"'{k}'" for k in keys)


def row_from_record(
    line: int, record: Mapping[str, Any], fields: FieldMap, where: str = "line"
) -> Row | RowError:
    """A row from one decoded record; `where` names the position in messages ("line 3")."""
    row_id = next((record[k] for k in fields.id if k in record), None)

    def error(message: str) -> RowError:
        return RowError(line=line, id=row_id, message=f"{where} {line}: {message}")

    truths = [k for k in fields.ground_truth if k in record]
    if len(truths) > 1:
        return error(f"both {' and '.join(truths)} given")
    contexts = [k for k in fields.context if k in record and record[k] is not None]
    if not contexts:
        return error(f"missing field {_quoted(fields.context)}")
    context = record[contexts[0]]
    if not isinstance(context, list) or not all(isinstance(c, str) for c in context):
        return error(f"'{contexts[0]}' must be a list of strings")
    return Row(
        line=line,
        id=row_id,
        input=next((record[k] for k in fields.input if k in record), None),
        ground_truth=record[truths[0]] if truths else None,
        context=context,
    )


def parse_line(line: int, text: str, fields: FieldMap | None = None) -> Row | RowError:
    """One JSON Lines record: `input`, `groundTruth` or `ground_truth`, `context` (strings)."""
    record = jsonl_record(text)
    if isinstance(record, str):
        return RowError(line=line, message=f"line {line}: {record}")
    return row_from_record(line, record, fields or FieldMap())


@dataclass(frozen=True)
class RowReader:
    """How a record becomes a row: the fields detected, and how a context given as text reads.

    The whole-file reader and the readers of parts of a file (shards, Ray) share it, so a
    record becomes the same row, or the same row error, however it was reached."""

    detection: Detection
    context_separator: str | None = None

    @property
    def where(self) -> str:
        """What a position is called in messages: a line of JSON Lines, a row otherwise."""
        return "line" if self.detection.format == InputFormat.JSONL else "row"

    def row(self, number: int, record: dict[str, Any] | str) -> Row | RowError:
        """The row of record `number`, or a row error; a `str` record is why it could not be
        read."""
        if isinstance(record, str):
            return RowError(line=number, message=f"{self.where} {number}: {record}")
        if self.detection.format in (InputFormat.JSONL, InputFormat.JSON):
            return row_from_record(number, record, self.detection.fields, self.where)
        return self._tabular_row(number, record)

    def _tabular_row(self, number: int, record: dict[str, Any]) -> Row | RowError:
        key = self.detection.found["context"]
        if key is not None and isinstance(record.get(key), str):
            try:
                record = {**record, key: decode_context_cell(record[key], self.context_separator)}
            except ValueError as e:
                message = f"{self.where} {number}: '{key}' is not a JSON list of strings: {e}"
                row_id = next((record[k] for k in self.detection.fields.id if k in record), None)
                return RowError(line=number, id=row_id, message=message)
        return row_from_record(number, record, self.detection.fields, self.where)


@dataclass(frozen=True)
class Dataset:
    """A dataset file ready to read: how its fields were detected, and how many records it has."""

    path: Path
    detection: Detection
    total: int
    context_separator: str | None = None

    @property
    def reader(self) -> RowReader:
        return RowReader(self.detection, self.context_separator)

    @property
    def where(self) -> str:
        """What a position is called in messages: a line of JSON Lines, a row otherwise."""
        return self.reader.where

    def rows(self) -> Iterator[Row | RowError]:
        """Every record in order as a row, or a row error saying why it cannot be scored."""
        reader = self.reader
        for number, record in records(self.detection.format, self.path):
            yield reader.row(number, record)


def require_context(detection: Detection, columns: list[str], name: str) -> None:
    """Refuse data with columns but none for the context, saying how to name it."""
    if columns and detection.found["context"] is None:
        wanted = " or ".join(detection.fields.context)
        raise DatasetError(
            f"{name}: no {wanted} field for the context ({detection.convention} names); "
            f"name it with --map context=COLUMN (fields: {', '.join(columns)})"
        )


def _columns_and_total(fmt: InputFormat, path: Path) -> tuple[list[str], int]:
    if fmt == InputFormat.PARQUET:
        parquet = parquet_file(path)
        return list(parquet.schema_arrow.names), int(parquet.metadata.num_rows)
    if fmt == InputFormat.CSV:
        with path.open(encoding="utf-8-sig", errors="replace", newline="") as f:
            columns = list(csv_reader(f).fieldnames or [])
        return columns, sum(1 for _ in csv_records(path))
    if fmt == InputFormat.JSON:
        items = json_array(path)
        sample = [i for i in items[:DETECTION_SAMPLE] if isinstance(i, dict)]
        total = len(items)
    else:
        sample = [
            r for _, r in islice(jsonl_records(path), DETECTION_SAMPLE) if isinstance(r, dict)
        ]
        with path.open("rb") as f:
            total = sum(1 for line in f if line.strip())
    keys: dict[str, None] = {}
    for record in sample:
        keys.update(dict.fromkeys(record))
    return list(keys), total


def open_dataset(
    path: Path, mapping: Mapping[str, str] | None = None, context_separator: str | None = None
) -> Dataset:
    """Detect `path`'s format and field names; fail, saying what to do, if it has no context."""
    fmt = input_format(path)
    columns, total = _columns_and_total(fmt, path)
    detection = detect(fmt, columns, mapping or {})
    require_context(detection, columns, path.name)
    return Dataset(path=path, detection=detection, total=total, context_separator=context_separator)
