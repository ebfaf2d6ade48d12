"""Labelled rows: one record per item, and a record that cannot be scored is a row error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from .readers import jsonl_record


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


class FieldMap(BaseModel):
    """For each field of a row, the record keys it may be read from, in order of preference.

    A record holding more than one of a field's keys is a row error: which one was meant?
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: tuple[str, ...] = ("id",)
    input: tuple[str, ...] = ("input",)
    ground_truth: tuple[str, ...] = ("groundTruth", "ground_truth")
    context: tuple[str, ...] = ("context",)


FIELDS = ("id", "input", "ground_truth", "context")
"""The fields of a row that a record's keys are mapped to."""


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
