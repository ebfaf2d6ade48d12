"""Result files: one record per dataset row, written and read as JSON Lines or Parquet."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .dataset import Row, RowError
from .errors import DatasetError
from .types import RecallResult, Status, Verdict

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def encodable(value: Any) -> Any:
    """`value` with lone UTF-16 surrogates (valid in JSON escapes, not in UTF-8) replaced by
    U+FFFD in every string it holds, so the record can always be written."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list | tuple):
        return [encodable(v) for v in value]
    if isinstance(value, dict):
        return {encodable(k): encodable(v) for k, v in value.items()}
    return value


class ResultRecord(BaseModel):
    """One row's result with what it was scored on, as a result file holds it.

    `input`, `ground_truth` and `context` are absent from files written before they were
    recorded; a report then shows the verdicts without the context.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int = Field(description="The row's position in the dataset, from 1")
    id: Any = None
    input: Any = None
    ground_truth: Any = None
    context: list[str] | None = None
    score: float | None
    reason: str
    status: Status
    error: str | None = None
    verdicts: tuple[Verdict, ...] = ()
    model_fingerprint: str
    prompt_version: str
    library_version: str

    @classmethod
    def of(cls, row: Row | RowError, result: RecallResult) -> ResultRecord:
        """The record of `row` scored as `result`."""
        given: dict[str, Any] = {"id": row.id}
        if isinstance(row, Row):
            given |= {"input": row.input, "ground_truth": row.ground_truth, "context": row.context}
        return cls.model_validate({"line": row.line, **encodable(given), **result.model_dump()})

    def result(self) -> RecallResult:
        """The scorer's result alone."""
        return RecallResult.model_validate(self.model_dump(include=set(RecallResult.model_fields)))


class OutputFormat(StrEnum):
    """How `score` writes its results."""

    JSONL = "jsonl"
    PARQUET = "parquet"


def output_format(path: Path) -> OutputFormat:
    """Parquet for a `.parquet` file, JSON Lines otherwise."""
    return OutputFormat.PARQUET if path.suffix.lower() == ".parquet" else OutputFormat.JSONL


class ResultWriter(Protocol):
    def write(self, record: ResultRecord) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class JsonlWriter:
    """One JSON object per line, written as results come."""

    def __init__(self, path: Path) -> None:
        self._file: TextIO = path.open("w", encoding="utf-8")

    def write(self, record: ResultRecord) -> None:
        self._file.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _as_text(value: Any) -> str | None:
    """A free-form value as a Parquet string: text as is, anything else as its JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def parquet_schema() -> Any:
    """The Arrow schema of a Parquet result file."""
    import pyarrow as pa

    verdict = pa.struct(
        [
            ("claim", pa.string()),
            ("supported", pa.bool_()),
            ("p_yes", pa.float64()),
            ("chunk_index", pa.int64()),
        ]
    )
    return pa.schema(
        [
            ("line", pa.int64()),
            ("id", pa.string()),
            ("input", pa.string()),
            ("ground_truth", pa.string()),
            ("context", pa.list_(pa.string())),
            ("score", pa.float64()),
            ("reason", pa.string()),
            ("status", pa.string()),
            ("error", pa.string()),
            ("verdicts", pa.list_(verdict)),
            ("model_fingerprint", pa.string()),
            ("prompt_version", pa.string()),
            ("library_version", pa.string()),
        ]
    )


class ParquetWriter:
    """Columns of a Parquet file, written a row group at a time.

    `id`, `input` and `ground_truth` are strings: a value that is not text is stored as its JSON.
    """

    ROW_GROUP = 1024

    def __init__(self, path: Path) -> None:
        import pyarrow.parquet as pq

        self._schema = parquet_schema()
        self._writer = pq.ParquetWriter(path, self._schema)
        self._pending: list[dict[str, Any]] = []

    def write(self, record: ResultRecord) -> None:
        row = record.model_dump(mode="json")
        for key in ("id", "input", "ground_truth"):
            row[key] = _as_text(row[key])
        self._pending.append(row)
        if len(self._pending) >= self.ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if self._pending:
            self._writer.write_table(pa.Table.from_pylist(self._pending, schema=self._schema))
            self._pending = []

    def close(self) -> None:
        self.flush()
        self._writer.close()


def open_writer(path: Path, fmt: OutputFormat) -> ResultWriter:
    """A writer of result records to `path` in `fmt`."""
    return ParquetWriter(path) if fmt == OutputFormat.PARQUET else JsonlWriter(path)


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as e:
            raise DatasetError(f"{path.name}: not a readable Parquet file ({e})") from e
        for number, row in enumerate(table.to_pylist(), start=1):
            yield f"row {number}", row
        return
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, start=1):
            if text.strip():
                try:
                    yield f"line {number}", json.loads(text)
                except json.JSONDecodeError as e:
                    raise DatasetError(
                        f"{path.name} line {number}: not valid JSON ({e.msg})"
                    ) from e


def read_results(path: Path) -> list[ResultRecord]:
    """The records of a result file written by `offline-recall score` (JSON Lines or Parquet)."""
    records: list[ResultRecord] = []
    for where, raw in _records(path):
        try:
            records.append(ResultRecord.model_validate(raw))
        except ValidationError as e:
            first = e.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "record"
            raise DatasetError(
                f"{path.name} {where}: not a result record ({field}: {first['msg']}); "
                "give a file written by `offline-recall score`"
            ) from e
    return records


@contextmanager
def closing_writer(writer: ResultWriter | None) -> Iterator[ResultWriter | None]:
    """Closes `writer`, if any, however the block ends."""
    try:
        yield writer
    finally:
        if writer is not None:
            writer.close()
