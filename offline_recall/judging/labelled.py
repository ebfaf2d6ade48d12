"""Labelled rows for calibration: a context, what it is judged against, and the verdict.

For context recall a row is `{"claim": str, "context": str | [str, ...], "label": ...}` with an
optional `group` (rows of one claim against several chunks share it; the claim is supported if
any chunk supports it) or `id`. For context precision a row is `{"question": str, "answer":
str, "chunk" (or "context"): str, "label": ...}`: is the chunk relevant to the answer. Labels:
true/false, 1/0, "yes"/"no", "supported"/"not_supported", "relevant"/"not_relevant".
A row that cannot be used is reported with its reason; the others are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..data.dataset import RowError
from ..data.readers import InputFormat, decode_context_cell, input_format, records

_TRUE = {"1", "true", "yes", "supported", "relevant"}
_FALSE = {"0", "false", "no", "not_supported", "unsupported", "not_relevant", "irrelevant"}


@dataclass(frozen=True)
class LabelledPair:
    """One (context, claim) pair with the label of its claim; a claim's pairs share a group.

    `claim` is what the context is judged against: a claim, or another scorer's statement
    (context precision's question and answer)."""

    context: str
    claim: Hashable
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


Statement = Callable[[Mapping[str, Any]], Hashable]
"""What a labelled record's context is judged against (a claim, or a question and answer);
raises ValueError, saying why, when the record lacks it."""


def claim_statement(record: Mapping[str, Any]) -> str:
    """A context recall row's statement: its claim."""
    claim = record.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError("claim must be a non-empty string")
    return claim


def _pairs(
    number: int, record: dict[str, Any], tabular: bool, statement: Statement
) -> list[LabelledPair]:
    claim = statement(record)
    if "label" not in record:
        raise ValueError("no label")
    label = _label(record["label"])
    group = str(record.get("group") or record.get("id") or f"row {number}")
    chunk = record.get("context", record.get("chunk"))
    return [
        LabelledPair(context=c, claim=claim, label=label, group=group)
        for c in _contexts(chunk, tabular)
    ]


def read_labelled(
    path: Path, statement: Statement = claim_statement
) -> tuple[list[LabelledPair], list[RowError]]:
    """The usable pairs of a labelled file, and the rows that were skipped with why.

    `statement` reads what each row's context is judged against (by default its claim)."""
    fmt = input_format(path)
    tabular = fmt in (InputFormat.CSV, InputFormat.PARQUET)
    pairs: list[LabelledPair] = []
    errors: list[RowError] = []
    for number, record in records(fmt, path):
        if isinstance(record, str):
            errors.append(RowError(line=number, message=f"row {number}: {record}"))
            continue
        try:
            pairs.extend(_pairs(number, record, tabular, statement))
        except ValueError as e:
            errors.append(RowError(line=number, id=record.get("id"), message=f"row {number}: {e}"))
    return pairs, errors
