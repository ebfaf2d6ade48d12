"""Rows given in memory (a list of dicts, a pandas DataFrame) as the JSON Lines file a run reads.

A run is identified by its input's bytes and reads its rows from a file, so rows given in memory
are written as JSON Lines first, one row a line in the order given: the same rows are the same
bytes, so they are the same run (and resume), and they are read exactly as a file of them would
be (the same field names detected, the same row errors). pandas is never imported here: a
DataFrame is recognised by what it offers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..errors import DatasetError


def is_frame(data: object) -> bool:
    """Whether `data` is a pandas DataFrame (told without importing pandas)."""
    kind = type(data)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas")


def frame_rows(frame: Any) -> Iterator[dict[str, Any]]:
    """A DataFrame's rows as dicts, its index left out. A missing cell (NaN, None, NA, NaT) is
    left out of its row, as a key a JSON record does not have: a DataFrame made from rows of
    different keys gives back those rows."""
    columns = [str(c) for c in frame.columns]
    for values in frame.itertuples(index=False, name=None):
        yield {c: v for c, v in zip(columns, values, strict=True) if not _missing(v)}


def _missing(value: Any) -> bool:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    # pandas' NA and NaT, and numpy's NaN, without importing either.
    return type(value).__name__ in ("NAType", "NaTType") or (
        type(value).__name__.startswith("float") and value != value
    )


def _plain(value: Any) -> Any:
    """A value JSON cannot write as it is, as a plain one: numpy's arrays and numbers (a
    DataFrame's list column read from Parquet holds arrays) and dates."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(type(value).__name__)


def jsonl_bytes(rows: Iterable[Any]) -> bytes:
    """`rows` as JSON Lines, one a line in order, UTF-8. A row that is not a mapping is written
    as the JSON it is, and read back as that line's error, as it would be from a file; a value
    that JSON cannot hold is refused, naming its row."""
    lines: list[str] = []
    for number, row in enumerate(rows, start=1):
        value = {str(k): v for k, v in row.items()} if isinstance(row, Mapping) else row
        try:
            lines.append(json.dumps(value, ensure_ascii=False, default=_plain))
        except (TypeError, ValueError) as e:
            raise DatasetError(
                f"row {number}: a value is not JSON ({e}); give text, numbers, lists, dicts or None"
            ) from None
    return "".join(line + "\n" for line in lines).encode("utf-8")
