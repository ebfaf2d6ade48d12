"""Datasets in the shapes people have: JSON Lines, JSON arrays, CSV and Parquet.

The format comes from the file's extension. Field names are detected from the keys or columns
(Mastra's, RAGAS's or our own) and reported; `--map field=column` names anything else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from .dataset import FIELDS, FieldMap, Row, RowError, row_from_record
from .errors import DatasetError
from .readers import (
    Record,
    csv_reader,
    csv_records,
    decode_context_cell,
    json_array,
    json_records,
    jsonl_records,
    parquet_file,
    parquet_records,
)


class InputFormat(StrEnum):
    """A dataset file's format, named by its extension."""

    JSONL = "JSON Lines"
    JSON = "JSON array"
    CSV = "CSV"
    PARQUET = "Parquet"


EXTENSIONS = {
    ".jsonl": InputFormat.JSONL,
    ".ndjson": InputFormat.JSONL,
    ".json": InputFormat.JSON,
    ".csv": InputFormat.CSV,
    ".parquet": InputFormat.PARQUET,
}


class Convention(BaseModel):
    """A tool's names for the fields of a labelled item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    fields: FieldMap


CONVENTIONS = (
    Convention(
        name="offline-recall", fields=FieldMap(ground_truth=("ground_truth", "groundTruth"))
    ),
    Convention(name="Mastra", fields=FieldMap(ground_truth=("groundTruth", "ground_truth"))),
    Convention(
        name="RAGAS",
        fields=FieldMap(
            input=("user_input",), ground_truth=("reference",), context=("retrieved_contexts",)
        ),
    ),
)
"""Known conventions; on a tie in detection the first listed wins."""

DETECTION_SAMPLE = 1000
"""Records of a JSON Lines file whose keys are read to detect its field names."""


class Detection(BaseModel):
    """How a dataset was read: its format, the field names found, and the keys each field uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: InputFormat
    convention: str
    mapped: dict[str, str]
    fields: FieldMap
    found: dict[str, str | None]

    def describe(self) -> str:
        """One line, e.g. `JSON Lines, Mastra field names: input=input, context=context`."""
        names = ", ".join(f"{f}={k}" for f, k in self.found.items() if k is not None)
        mapped = " with " + " ".join(f"--map {f}={c}" for f, c in self.mapped.items())
        return (
            f"{self.format}, {self.convention} field names{mapped if self.mapped else ''}: {names}"
        )

    def warnings(self) -> list[str]:
        """Fields no record has, where that changes every item's outcome."""
        if self.found["ground_truth"] is None:
            keys = ", ".join(self.fields.ground_truth)
            return [
                f"no {keys} in the data: every item scores 0 as no_ground_truth "
                "(name the column with --map ground_truth=COLUMN)"
            ]
        return []


def parse_mapping(items: Sequence[str]) -> dict[str, str]:
    """`field=column` pairs from the command line, checked against the fields of a row."""
    mapping: dict[str, str] = {}
    for item in items:
        field, sep, column = item.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not column:
            raise DatasetError(f"--map {item!r}: expected FIELD=COLUMN, e.g. context=contexts")
        if field not in FIELDS:
            raise DatasetError(
                f"--map {item!r}: unknown field {field!r}; fields: {', '.join(FIELDS)}"
            )
        mapping[field] = column
    return mapping


def detect(fmt: InputFormat, columns: Sequence[str], mapped: Mapping[str, str]) -> Detection:
    """The convention whose names most fields match (first listed on a tie), then `mapped`."""
    present = set(columns)

    def matches(c: Convention) -> int:
        return sum(getattr(c.fields, f)[0] in present for f in ("input", "ground_truth", "context"))

    best = max(CONVENTIONS, key=lambda c: (matches(c), -CONVENTIONS.index(c)))
    fields = best.fields.model_copy(update={f: (c,) for f, c in mapped.items()})
    found = {f: next((k for k in getattr(fields, f) if k in present), None) for f in FIELDS}
    return Detection(
        format=fmt, convention=best.name, mapped=dict(mapped), fields=fields, found=found
    )


def input_format(path: Path) -> InputFormat:
    """The format named by the file's extension."""
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(EXTENSIONS)
        raise DatasetError(f"{path.name}: unknown data format {path.suffix!r}; use one of {known}")
    return fmt


def records(fmt: InputFormat, path: Path) -> Iterator[Record]:
    """The raw records of a `fmt` file, in order, with their positions."""
    readers = {
        InputFormat.JSONL: jsonl_records,
        InputFormat.JSON: json_records,
        InputFormat.CSV: csv_records,
        InputFormat.PARQUET: parquet_records,
    }
    return readers[fmt](path)


@dataclass(frozen=True)
class Dataset:
    """A dataset file ready to read: how its fields were detected, and how many records it has."""

    path: Path
    detection: Detection
    total: int
    context_separator: str | None = None

    @property
    def where(self) -> str:
        """What a position is called in messages: a line of JSON Lines, a row otherwise."""
        return "line" if self.detection.format == InputFormat.JSONL else "row"

    def rows(self) -> Iterator[Row | RowError]:
        """Every record in order as a row, or a row error saying why it cannot be scored."""
        tabular = self.detection.format in (InputFormat.CSV, InputFormat.PARQUET)
        for number, record in records(self.detection.format, self.path):
            if isinstance(record, str):
                yield RowError(line=number, message=f"{self.where} {number}: {record}")
            elif tabular:
                yield self._tabular_row(number, record)
            else:
                yield row_from_record(number, record, self.detection.fields, self.where)

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
    if columns and detection.found["context"] is None:
        wanted = " or ".join(detection.fields.context)
        raise DatasetError(
            f"{path.name}: no {wanted} field for the context ({detection.convention} names); "
            f"name it with --map context=COLUMN (fields: {', '.join(columns)})"
        )
    return Dataset(path=path, detection=detection, total=total, context_separator=context_separator)
