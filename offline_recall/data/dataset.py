"""A dataset file as rows: each record a scorable row, or a row error saying why it is not."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import DatasetError
from ..printable import listed
from .fields import (
    FIELDS,
    LISTED_GROUND_TRUTH,
    Detection,
    FieldMap,
    close_name,
    detect,
    ground_truth_value,
    names_of,
)
from .input_copy import InputCopy
from .readers import (
    InputFormat,
    Record,
    decode_context_cell,
    input_format,
    parquet_records,
    refused_value,
    text_records,
)
from .scan import scan
from .version import FileStamp, FileVersion, check_same_file

DETECTION_SAMPLE = 1000
"""Records of a JSON Lines file whose keys are read to detect its field names."""


class Row(BaseModel):
    """A scorable record: what was asked, the labelled answer, and the context retrieved for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    input: Any = None
    ground_truth: Any = None
    context: list[str] | None
    """The retrieved chunks; None only when no scorer of the run reads them."""
    output: Any = None
    """The answer the system gave (read by scorers of the output, e.g. faithfulness)."""
    metadata: dict[str, Any] | None = None
    """The record's other fields, which no scorer reads, carried into its result record."""


class RowError(BaseModel):
    """A record that cannot be scored, with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    message: str
    """What is wrong and where: `line 4: not valid JSON: ...`."""
    reason: str | None = None
    """The same without its position, as a result records it beside its own `line`."""
    input: Any = None
    ground_truth: Any = None
    context: list[str] | None = None
    output: Any = None
    metadata: dict[str, Any] | None = None
    """The record's fields as read, where it was a record: its result record keeps them (a
    value that could not be read as its field, such as a context that is not a list of
    strings, is kept here under its own key)."""

    @property
    def error(self) -> str:
        """What a result's `error` says: the reason, the record carrying the line."""
        return self.reason or self.message


def row_error(line: int, reason: str, where: str = "line", row_id: Any = None) -> RowError:
    """The error of record `line`: `where` names the position in messages ("line 3")."""
    return RowError(line=line, id=row_id, message=f"{where} {line}: {reason}", reason=reason)


def _quoted(keys: tuple[str, ...]) -> str:
    return " or ".join(f"'{k}'" for k in keys)


def _missing_context(record: Mapping[str, Any], fields: FieldMap) -> str:
    """Why a record has no context, with the fields it has and the option that names one."""
    given = [str(k) for k, v in record.items() if v is not None]
    found = listed(given) if given else "none"
    close = close_name(given, [*names_of("context"), *fields.context])
    if close is not None:
        key, meant = close
        return (
            f"missing field {_quoted(fields.context)} (fields found: {found}); did you mean "
            f"{meant} (the field {key})? read it with --map context={key}"
        )
    return (
        f"missing field {_quoted(fields.context)} (fields found: {found}); "
        "name the context's field with --map context=FIELD"
    )


def _read(record: Mapping[str, Any], fields: FieldMap) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record's id, input, ground truth and output by `fields`, and its other fields (which
    no scorer reads). Two ground truths give none: which one was meant?"""
    truths = [k for k in fields.ground_truth if k in record]
    read = {k for f in FIELDS for k in getattr(fields, f)}
    given = {
        "id": next((record[k] for k in fields.id if k in record), None),
        "input": next((record[k] for k in fields.input if k in record), None),
        "ground_truth": (
            ground_truth_value(truths[0], record[truths[0]]) if len(truths) == 1 else None
        ),
        "output": next((record[k] for k in fields.output if k in record), None),
    }
    return given, {str(k): v for k, v in record.items() if k not in read}


def _chunks(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, str) for c in value)


def _refused(
    line: int,
    reason: str,
    where: str,
    record: Mapping[str, Any],
    fields: FieldMap,
    *unread: str,
) -> RowError:
    """The error of a record that cannot be scored, keeping its fields as read; the values
    of `unread` keys (read as no field) are kept with its other fields."""
    given, others = _read(record, fields)
    if any(k in unread for k in fields.ground_truth):
        given["ground_truth"] = None  # kept as read with the other fields, not as one
    kept = others | {k: record[k] for k in unread}
    context = next((record[k] for k in fields.context if k in record and k not in unread), None)
    return RowError(
        line=line,
        message=f"{where} {line}: {reason}",
        reason=reason,
        context=context if _chunks(context) else None,
        metadata=kept or None,
        **given,
    )


def row_from_record(
    line: int,
    record: Mapping[str, Any],
    fields: FieldMap,
    where: str = "line",
    context_required: bool = True,
) -> Row | RowError:
    """A row from one decoded record; `where` names the position in messages ("line 3").
    A record without a context is an error when `context_required`, else a row without one.
    A record that is an error keeps its fields as read."""
    truths = [k for k in fields.ground_truth if k in record]
    if len(truths) > 1:
        return _refused(line, f"both {' and '.join(truths)} given", where, record, fields, *truths)
    contexts = [k for k in fields.context if k in record and record[k] is not None]
    context = record[contexts[0]] if contexts else None
    if context is None and context_required:
        return _refused(line, _missing_context(record, fields), where, record, fields)
    if context is not None and not _chunks(context):
        reason = f"'{contexts[0]}' must be a list of strings"
        return _refused(line, reason, where, record, fields, contexts[0])
    answers = record.get(LISTED_GROUND_TRUTH) if LISTED_GROUND_TRUTH in truths else None
    if isinstance(answers, list) and not all(isinstance(v, str) for v in answers):
        reason = f"'{LISTED_GROUND_TRUTH}' must be a list of strings (reference answers)"
        return _refused(line, reason, where, record, fields, LISTED_GROUND_TRUTH)
    given, others = _read(record, fields)
    return Row(line=line, context=context, metadata=others or None, **given)


@dataclass(frozen=True)
class RowReader:
    """How a record becomes a row: the fields detected, and how a context given as text reads.

    The whole-file reader and the readers of parts of a file (shards, Ray) share it, so a
    record becomes the same row, or the same row error, however it was reached."""

    detection: Detection
    context_separator: str | None = None
    context_required: bool = True
    """Whether a record without a context is an error (a scorer of the run reads it)."""

    @property
    def where(self) -> str:
        """What a position is called in messages: a line of JSON Lines, a row otherwise."""
        return "line" if self.detection.format == InputFormat.JSONL else "row"

    def row(self, number: int, record: dict[str, Any] | str) -> Row | RowError:
        """The row of record `number`, or a row error; a `str` record is why it could not be
        read."""
        if isinstance(record, str):
            return row_error(number, record, self.where)
        if (refused := refused_value(record)) is not None:
            return row_error(number, refused, self.where)
        fields = self.detection.fields_for([k for k, v in record.items() if v is not None])
        if self.detection.format in (InputFormat.JSONL, InputFormat.JSON):
            return row_from_record(number, record, fields, self.where, self.context_required)
        return self._tabular_row(number, record, fields)

    def _tabular_row(self, number: int, record: dict[str, Any], fields: FieldMap) -> Row | RowError:
        key = next((k for k in fields.context if k in record), None)
        if key is not None and isinstance(record.get(key), str):
            try:
                record = {**record, key: decode_context_cell(record[key], self.context_separator)}
            except ValueError as e:
                reason = f"'{key}' is not a JSON list of strings: {e}"
                return _refused(number, reason, self.where, record, fields, key)
        return row_from_record(number, record, fields, self.where, self.context_required)


@dataclass(frozen=True)
class Dataset:
    """A dataset file ready to read: how its fields were detected, and how many records it has."""

    path: Path
    detection: Detection
    total: int
    context_separator: str | None = None
    context_required: bool = True
    """Whether a record without a context is an error (a scorer of the run reads it)."""
    sha256: str | None = None
    """The sha256 of the file's bytes, taken as it was opened."""
    size: int | None = None
    """The file's bytes, as hashed."""
    head: tuple[Record, ...] = ()
    """The first records, kept as the file was opened: a survey reads them again for free."""
    copy: InputCopy | None = None
    """The bytes hashed as the file was opened: its rows are read from them."""
    opened: FileStamp | None = None
    """The file as it was opened, which it must still be once its rows are read."""

    @property
    def delimiter(self) -> str | None:
        """A CSV file's delimiter, as given or as its header line shows it."""
        return self.detection.delimiter

    @property
    def reader(self) -> RowReader:
        return RowReader(self.detection, self.context_separator, self.context_required)

    @property
    def where(self) -> str:
        """What a position is called in messages: a line of JSON Lines, a row otherwise."""
        return self.reader.where

    @property
    def version(self) -> FileVersion | None:
        """The bytes the file held as it was opened, which every read of its rows must find."""
        if self.sha256 is None or self.size is None:
            return None
        return FileVersion(self.sha256, self.size)

    def rows(self) -> Iterator[Row | RowError]:
        """Every record in order as a row, or a row error saying why it cannot be scored.
        Read from the bytes hashed as the file was opened (the file is not opened again):
        once the rows end, a file that changed meanwhile raises `InputChanged`."""
        reader = self.reader
        for number, record in self._records():
            yield reader.row(number, record)

    def _records(self) -> Iterator[Record]:
        assert self.copy is not None, "a dataset's rows are read from the bytes it hashed"
        fmt, source = self.detection.format, self.copy.open()
        if fmt == InputFormat.PARQUET:
            yield from parquet_records(self.path, source)
        else:
            yield from text_records(fmt, source, self.path.name, self.delimiter).records
        if self.version is not None and self.opened is not None:
            check_same_file(self.path, self.version, self.opened)

    def first_rows(self) -> Iterator[Row | RowError]:
        """Every row in order, as `rows` gives them, the first from the records kept when the
        file was opened: the file is read again only past them."""
        reader = self.reader
        for number, record in self.head:
            yield reader.row(number, record)
        if len(self.head) < self.total:
            rest = islice(self._records(), len(self.head), None)
            for number, record in rest:
                yield reader.row(number, record)


def holds(value: Any) -> bool:
    """Whether a field's value holds something: not missing, null, blank text or empty."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | dict):
        return bool(value)
    return value is not None


FIRST_REFUSED = 5
"""Row errors a survey keeps, for a message to show."""


@dataclass(frozen=True)
class Survey:
    """What a pass over a dataset's rows found before any scoring: whether a row can be
    scored, which fields the rows hold, and the first row errors."""

    read: int
    """Records read: every one when no row could be scored or a wanted field was missing."""
    scorable: int
    """Rows among them that can be scored."""
    present: frozenset[str]
    """The fields (`FIELDS`) some scorable row holds; a context that is an empty list counts
    (the retriever found nothing, and the row scores `no_context`)."""
    refused: tuple[RowError, ...]
    """The first row errors, in order."""


def survey(dataset: Dataset, wanted: Collection[Collection[str]] = ()) -> Survey:
    """Read `dataset`'s rows in order until one can be scored and, of each group of fields
    `wanted`, one has been found in some scorable row; or until the rows end. A file that can
    be scored is read no further than that (its first row, as a rule); only one that cannot is
    read whole, keeping counts and the first row errors, never the rows."""
    read = scorable = 0
    present: set[str] = set()
    refused: list[RowError] = []
    for row in dataset.first_rows():
        read += 1
        if isinstance(row, RowError):
            if len(refused) < FIRST_REFUSED:
                refused.append(row)
            continue
        scorable += 1
        present |= {f for f in FIELDS if holds(getattr(row, f))}
        if row.context is not None:  # an empty list is a retrieval that found nothing: no_context
            present.add("context")
        if all(present.intersection(fields) for fields in wanted):
            break
    return Survey(read, scorable, frozenset(present), tuple(refused))


def require_context(detection: Detection, columns: list[str], name: str) -> None:
    """Refuse data with columns but none for the context, saying how to name it (for a run
    whose scorers read the context)."""
    if columns and detection.found["context"] is None:
        wanted = " or ".join(detection.fields.context)
        if not wanted:
            advice = detection.advice("context", "name the context's column")
            raise DatasetError(
                f"{name}: no column is left for the context: {detection.taken('context')}; {advice}"
            )
        raise DatasetError(
            f"{name}: no {wanted} field for the context ({detection.convention} names); "
            f"{detection.advice('context', 'name it')}"
        )


def open_dataset(
    path: Path,
    mapping: Mapping[str, str] | None = None,
    context_separator: str | None = None,
    *,
    context_required: bool = True,
    delimiter: str | None = None,
) -> Dataset:
    """Detect `path`'s format and field names (a CSV file's delimiter is `delimiter`, else the
    one its header shows); fail, saying what to do, if it has no context and
    `context_required` (a scorer of the run reads it)."""
    fmt = input_format(path)
    if not path.is_file():
        raise DatasetError(
            f"{path}: not a regular file; a FIFO or device cannot be read again to resume or "
            "verify a run, nor checked for changes: save it to a file first"
        )
    found = scan(fmt, path, delimiter)
    if found.columns is not None:
        sample: list[dict[str, Any]] = []
        columns = found.columns
    else:
        sample = [r for _, r in found.head[:DETECTION_SAMPLE] if isinstance(r, dict)]
        columns = list(dict.fromkeys(k for record in sample for k in record))
    detection = detect(fmt, columns, mapping or {}, sample)
    detection = detection.model_copy(update={"delimiter": found.delimiter})
    if context_required:
        require_context(detection, columns, path.name)
    return Dataset(
        path,
        detection,
        found.total,
        context_separator,
        context_required,
        found.sha256,
        found.size,
        found.head,
        found.copy,
        found.opened,
    )
