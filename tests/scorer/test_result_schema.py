"""A Parquet result file's schema is read off the result models: the same file as before, and
a new field in a result is a new column without a second declaration."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pyarrow as pa
import pytest

from offline_recall.frozen import Frozen
from offline_recall.runs.arrow import arrow_fields, arrow_type
from offline_recall.runs.results import parquet_schema

COMMON = [
    ("scorer", pa.string()),
    ("score", pa.float64()),
    ("reason", pa.string()),
    ("status", pa.string()),
    ("error", pa.string()),
    ("transient", pa.bool_()),
    ("model_fingerprint", pa.string()),
    ("prompt_version", pa.string()),
    ("judge_profile", pa.string()),
    ("library_version", pa.string()),
]
RECALL = pa.struct(
    [
        *COMMON,
        (
            "verdicts",
            pa.list_(
                pa.struct(
                    [
                        ("claim", pa.string()),
                        ("supported", pa.bool_()),
                        ("probability", pa.float64()),
                        ("model_p_yes", pa.float64()),
                        ("chunk_index", pa.int64()),
                    ]
                )
            ),
        ),
        ("expected_recall", pa.float64()),
    ]
)
PRECISION = pa.struct(
    [
        *COMMON,
        (
            "verdicts",
            pa.list_(
                pa.struct(
                    [
                        ("chunk_index", pa.int64()),
                        ("relevant", pa.bool_()),
                        ("probability", pa.float64()),
                        ("model_p_yes", pa.float64()),
                    ]
                )
            ),
        ),
    ]
)


def test_the_result_file_schema_is_the_one_files_were_written_with() -> None:
    """Pinned: result files written before the schema was derived read the same."""
    expected = pa.schema(
        [
            ("line", pa.int64()),
            ("id", pa.string()),
            ("input", pa.string()),
            ("output", pa.string()),
            ("ground_truth", pa.string()),
            ("context", pa.list_(pa.string())),
            ("spec_digest", pa.string()),
            ("metadata", pa.string()),
            ("context-recall-scorer", RECALL),
            ("context-precision-scorer", PRECISION),
        ]
    )
    found = parquet_schema(["context-recall-scorer", "context-precision-scorer"])
    assert found.equals(expected, check_metadata=True), f"{found}\n!=\n{expected}"


class Colour(StrEnum):
    RED = "red"


class Inner(Frozen):
    n: int
    ok: bool | None = None


class Outer(Frozen):
    free: Any = None
    colour: Colour
    inner: Inner
    many: tuple[Inner, ...] = ()
    names: list[str] | None = None
    weight: float


def test_each_kind_of_field_has_its_arrow_type() -> None:
    inner = pa.struct([("n", pa.int64()), ("ok", pa.bool_())])
    assert arrow_fields(Outer, skip={"weight"}) == [
        ("free", pa.string()),
        ("colour", pa.string()),
        ("inner", inner),
        ("many", pa.list_(inner)),
        ("names", pa.list_(pa.string())),
    ]


@pytest.mark.parametrize("annotation", [dict[str, int], int | str, bytes, tuple[int, str]])
def test_a_field_with_no_arrow_type_is_refused(annotation: Any) -> None:
    with pytest.raises(TypeError, match="no Arrow type"):
        arrow_type(annotation)
