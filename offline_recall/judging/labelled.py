"""Labelled attribution rows for calibration: a claim, its context, and whether it is supported.

A row is `{"claim": str, "context": str | [str, ...], "label": ...}` with an optional `group`
(rows of one claim against several chunks share it; the claim is supported if any chunk
supports it) or `id`. Labels: true/false, 1/0, "yes"/"no", "supported"/"not_supported".
A row that cannot be used is reported with its reason; the others are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..data.dataset import RowError
from ..data.readers import InputFormat, decode_context_cell, input_format, records

_TRUE = {"1", "true", "yes", "supported"}
_FALSE = {"0", "false", "no", "not_supported", "unsupported"}


@dataclass(frozen=True)
class LabelledPair:
    """One (context, claim) pair with the label of its claim; a claim's pairs share a group."""

    context: str
    claim: str
    label: bool
    group: str


def _label(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().casefold()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(
        f"label {value!r} is not one of true/false, 1/0, yes/no, supported/not_supported"
    )


def _contexts(value: Any, tabular: bool) -> list[str]:
    if tabular and isinstance(value, str) and value.lstrip().startswith("["):
        value = decode_context_cell(value, None)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("context must be a string or a list of strings")
    texts = [v for v in value if v.strip()]
    if not texts:
        raise ValueError("context is empty")
    return texts


def _pairs(number: int, record: dict[str, Any], tabular: bool) -> list[LabelledPair]:
    claim = record.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError("claim must be a non-empty string")
    if "label" not in record:
        raise ValueError("no label")
    label = _label(record["label"])
    group = str(record.get("group") or record.get("id") or f"row {number}")
    return [
        LabelledPair(context=c, claim=claim, label=label, group=group)
        for c in _contexts(record.get("context"), tabular)
    ]


def read_labelled(path: Path) -> tuple[list[LabelledPair], list[RowError]]:
    """The usable pairs of a labelled file, and the rows that were skipped with why."""
    fmt = input_format(path)
    tabular = fmt in (InputFormat.CSV, InputFormat.PARQUET)
    pairs: list[LabelledPair] = []
    errors: list[RowError] = []
    for number, record in records(fmt, path):
        if isinstance(record, str):
            errors.append(RowError(line=number, message=f"row {number}: {record}"))
            continue
        try:
            pairs.extend(_pairs(number, record, tabular))
        except ValueError as e:
            errors.append(RowError(line=number, id=record.get("id"), message=f"row {number}: {e}"))
    return pairs, errors
