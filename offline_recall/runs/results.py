"""Result files: one record per dataset row, written and read as JSON Lines or Parquet.

A record holds the row (line, id, input, output, ground truth, context) and each scorer's
result under the scorer's id. In Parquet each scorer's result is a struct column named by its id.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, TextIO

from pydantic import Field, SerializeAsAny, ValidationError, model_validator

from ..data.dataset import Row, RowError
from ..data.readers import json_error
from ..errors import DatasetError, OfflineRecallError
from ..frozen import Frozen
from ..scorer.registry import SCORERS, result_type
from ..scorer.results import ScoreResult
from .arrow import arrow_fields

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


class ItemRecord(Frozen):
    """One row's results with what it was scored on, as a result file holds it."""

    line: int = Field(description="The row's position in the dataset, from 1")
    id: Any = None
    input: Any = None
    output: Any = None
    """The answer being checked (what faithfulness judges), as the row gave it."""
    ground_truth: Any = None
    context: list[str] | None = None
    results: dict[str, SerializeAsAny[ScoreResult]] = Field(
        description="Each scorer's result, by scorer id"
    )
    spec_digest: str | None = Field(
        default=None, description="The run spec's digest: runs that share it are comparable"
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The row's other fields, which no scorer reads, as the row gave them",
    )

    @model_validator(mode="before")
    @classmethod
    def _typed_results(cls, data: Any) -> Any:
        """Each scorer's result read as that scorer's own result type."""
        if isinstance(data, Mapping) and isinstance(data.get("results"), Mapping):
            results = {
                sid: r if isinstance(r, ScoreResult) else result_type(sid).model_validate(r)
                for sid, r in data["results"].items()
            }
            data = {**data, "results": results}
        return data

    @classmethod
    def of(
        cls, row: Row | RowError, results: Mapping[str, ScoreResult], spec_digest: str | None
    ) -> ItemRecord:
        """The record of `row` scored as `results`; a row error's record keeps the fields it
        was read with."""
        given: dict[str, Any] = {
            "id": row.id,
            "input": row.input,
            "output": row.output,
            "ground_truth": row.ground_truth,
            "context": row.context,
        }
        if row.metadata is not None:
            given["metadata"] = row.metadata
        return cls(
            line=row.line,
            **encodable(given),
            results=dict(results),
            spec_digest=spec_digest,
        )

    def result(self, scorer_id: str) -> ScoreResult:
        """The result of scorer `scorer_id`; a clear error if the run did not use it."""
        found = self.results.get(scorer_id)
        if found is None:
            raise DatasetError(
                f"line {self.line} has no {scorer_id} result (it has {', '.join(self.results)})"
            )
        return found


def as_json_line(record: ItemRecord) -> str:
    """The record exactly as a JSON Lines result file holds it."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False)


class OutputFormat(StrEnum):
    """How `score` writes its results."""

    JSONL = "jsonl"
    PARQUET = "parquet"


def output_format(path: Path) -> OutputFormat:
    """Parquet for a `.parquet` file, JSON Lines otherwise."""
    return OutputFormat.PARQUET if path.suffix.lower() == ".parquet" else OutputFormat.JSONL


class ResultWriter(Protocol):
    def write(self, record: ItemRecord) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class JsonlWriter:
    """One JSON object per line, written as results come."""

    def __init__(self, path: Path) -> None:
        self._file: TextIO = path.open("w", encoding="utf-8")

    def write(self, record: ItemRecord) -> None:
        self._file.write(as_json_line(record) + "\n")

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _as_text(value: Any) -> str | None:
    """A free-form value as a Parquet string: text as is, anything else as its JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def parquet_schema(scorer_ids: Sequence[str]) -> Any:
    """The Arrow schema of a Parquet result file with the results of `scorer_ids`: the record's
    row fields, then each scorer's result as a struct column named by its id."""
    import pyarrow as pa

    scorers = [(sid, pa.struct(arrow_fields(result_type(sid)))) for sid in scorer_ids]
    return pa.schema([*arrow_fields(ItemRecord, skip={"results"}), *scorers])


def parquet_row(record: ItemRecord) -> dict[str, Any]:
    """A record as a row of `parquet_schema`: free-form values as text, each scorer's result
    in its own column."""
    row = record.model_dump(mode="json")
    for key in ("id", "input", "output", "ground_truth"):
        row[key] = _as_text(row[key])
    row["metadata"] = _as_text(row.get("metadata"))
    row |= row.pop("results")
    return row


class ParquetWriter:
    """Columns of a Parquet file, written a row group at a time.

    `id`, `input`, `output` and `ground_truth` are strings: a value that is not text is stored
    as its JSON. Each scorer's result is a struct column named by the scorer's id.
    """

    ROW_GROUP = 1024

    def __init__(self, path: Path, scorer_ids: Sequence[str]) -> None:
        import pyarrow.parquet as pq

        self._schema = parquet_schema(scorer_ids)
        self._writer = pq.ParquetWriter(path, self._schema)
        self._pending: list[dict[str, Any]] = []

    def write(self, record: ItemRecord) -> None:
        self._pending.append(parquet_row(record))
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


def open_writer(path: Path, fmt: OutputFormat, scorer_ids: Sequence[str]) -> ResultWriter:
    """A writer of result records to `path` in `fmt`."""
    return ParquetWriter(path, scorer_ids) if fmt == OutputFormat.PARQUET else JsonlWriter(path)


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        try:
            batches = pq.ParquetFile(path).iter_batches(batch_size=1024)
            rows = (row for batch in batches for row in batch.to_pylist())
            first = next(rows, None)
        except Exception as e:
            raise DatasetError(f"{path.name}: not a readable Parquet file ({e})") from e
        if first is None:
            return
        # A row group at a time, so a long run is never held whole.
        for number, row in enumerate(itertools.chain([first], rows), start=1):
            results = {
                k: row.pop(k)
                for k in list(row)
                if k not in ItemRecord.model_fields and k in SCORERS
            }
            if isinstance(row.get("metadata"), str):
                row["metadata"] = json.loads(row["metadata"])
            yield f"row {number}", {**row, "results": results}
        return
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, start=1):
            if text.strip():
                try:
                    yield f"line {number}", json.loads(text)
                except json.JSONDecodeError as e:
                    raise DatasetError(
                        f"{path.name} line {number}: not valid JSON: {json_error(e, line=False)}"
                    ) from e


def read_results(path: Path) -> list[ItemRecord]:
    """The records of a result file written by `offline-recall score` (JSON Lines or Parquet)."""
    return list(iter_results(path))


def iter_results(path: Path) -> Iterator[ItemRecord]:
    """The records of a result file one at a time, in the file's order: a long run is read
    without holding it whole. A record that is not one raises `DatasetError` when reached."""
    for where, raw in _records(path):
        try:
            yield ItemRecord.model_validate(raw)
        except (ValidationError, OfflineRecallError) as e:
            message = str(e).splitlines()[0]
            if isinstance(e, ValidationError):
                first = e.errors()[0]
                field = ".".join(str(p) for p in first["loc"]) or "record"
                message = f"{field}: {first['msg']}"
            raise DatasetError(
                f"{path.name} {where}: not a result record ({message}); "
                "give a file written by `offline-recall score`"
            ) from e


@contextmanager
def readable_twice(path: Path) -> Iterator[Path]:
    """`path` itself when it is a regular file; otherwise (a FIFO, a process substitution) its
    bytes, read once, in a temporary file with the same extension, removed after the block:
    a stream opened a second time would wait for a writer that is gone."""
    if path.is_file():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="offline-recall-") as folder:
        copy = Path(folder) / f"results{path.suffix}"
        try:
            with path.open("rb") as source, copy.open("wb") as target:
                shutil.copyfileobj(source, target)
        except OSError as e:
            raise DatasetError(f"cannot read {path}: {e.strerror or e}") from None
        yield copy
