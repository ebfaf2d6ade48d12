"""A scoring request: one run as a JSON object, read as `score` reads a JSON Lines row.

The object holds Mastra's fields, `input`, `output`, `groundTruth` (or `ground_truth`) and
`context` (the retrieved chunks, a list of strings), and may say the `scale` it expects. Any
other key is refused, so that a misspelt field is an error rather than a run scored without it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..data.dataset import Row, RowError, row_from_record
from ..data.fields import FieldMap
from ..data.readers import json_error, refused_value, too_long_number

REQUEST_FIELDS = ("input", "output", "groundTruth", "ground_truth", "context", "scale")
"""The keys a request's object may hold."""

_FIELDS = FieldMap()
"""Mastra's names (`groundTruth` first, `ground_truth` too), as `score` reads them."""


class RequestError(Exception):
    """A request that cannot be scored: the HTTP status to answer and why, in one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class ScoreRequest:
    """A request read: its run as a dataset row, and the scale it expects (None: any)."""

    row: Row
    scale: float | None


def _scale(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestError(400, f"`scale` must be a finite number, got {json.dumps(value)}")
    return float(value)


def read_request(body: bytes, reads_context: bool) -> ScoreRequest:
    """The run in a request's body; a `RequestError` (400) saying what is wrong otherwise.

    `reads_context`: the scorer asked for reads the run's context, so the run must carry one.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RequestError(400, f"the body is not UTF-8 text (byte {e.start})") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise RequestError(400, f"the body is not JSON: {json_error(e)}") from None
    except RecursionError:
        raise RequestError(400, "the body is nested too deeply") from None
    except ValueError:  # int(): a number longer than Python converts
        raise RequestError(400, f"the body cannot be read: {too_long_number()}") from None
    if not isinstance(record, dict):
        raise RequestError(400, "the body must be a JSON object: {input, output, groundTruth, ...}")
    unknown = [str(k) for k in record if k not in REQUEST_FIELDS]
    if unknown:
        raise RequestError(
            400, f"unknown field {unknown[0]!r}; a run's fields: {', '.join(REQUEST_FIELDS)}"
        )
    if (refused := refused_value(record)) is not None:
        raise RequestError(400, f"the run {refused}")
    run = {k: v for k, v in record.items() if k != "scale"}
    if reads_context and run.get("context") is None:
        raise RequestError(400, "the run has no `context`: give the retrieved chunks as a list")
    row = row_from_record(1, run, _FIELDS, "request", context_required=False)
    if isinstance(row, RowError):
        raise RequestError(400, f"the run cannot be scored: {row.error}")
    return ScoreRequest(row=row, scale=_scale(record.get("scale")))
