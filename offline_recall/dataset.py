"""Reading a labelled dataset (JSON Lines): one row per line, a broken line is a row error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict


class Row(BaseModel):
    """A scorable line: what was asked, the labelled answer, and the context retrieved for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    input: Any = None
    ground_truth: Any = None
    context: list[str]


class RowError(BaseModel):
    """A line that cannot be scored, with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    id: Any = None
    message: str


def parse_line(line: int, text: str) -> Row | RowError:
    """One JSON Lines record: `input`, `groundTruth` or `ground_truth`, `context` (strings)."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        return RowError(line=line, message=f"line {line}: not valid JSON ({e.msg})")
    if not isinstance(record, dict):
        return RowError(line=line, message=f"line {line}: expected a JSON object")
    row_id = record.get("id")
    if "groundTruth" in record and "ground_truth" in record:
        return RowError(
            line=line, id=row_id, message=f"line {line}: both groundTruth and ground_truth given"
        )
    context = record.get("context")
    if context is None:
        return RowError(line=line, id=row_id, message=f"line {line}: missing field 'context'")
    if not isinstance(context, list) or not all(isinstance(c, str) for c in context):
        return RowError(
            line=line,
            id=row_id,
            message=f"line {line}: 'context' must be a list of strings",
        )
    return Row(
        line=line,
        id=row_id,
        input=record.get("input"),
        ground_truth=record.get("groundTruth", record.get("ground_truth")),
        context=context,
    )


def read_rows(path: Path) -> Iterator[Row | RowError]:
    """Rows of a JSON Lines file in order, lines numbered from 1; blank lines are skipped."""
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, start=1):
            if text.strip():
                yield parse_line(number, text)
