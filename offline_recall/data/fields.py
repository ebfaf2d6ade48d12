"""Field names: which key or column of a record holds each field of a row.

Names are detected from the keys or columns (Mastra's, RAGAS's or our own) and reported;
`--map field=column` names anything else.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ..errors import DatasetError
from .readers import InputFormat


class FieldMap(BaseModel):
    """For each field of a row, the record keys it may be read from, in order of preference.

    A record holding more than one of a field's keys is a row error: which one was meant?
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: tuple[str, ...] = ("id",)
    input: tuple[str, ...] = ("input",)
    ground_truth: tuple[str, ...] = ("groundTruth", "ground_truth")
    context: tuple[str, ...] = ("context",)
    output: tuple[str, ...] = ("output",)


FIELDS = ("id", "input", "ground_truth", "context", "output")
"""The fields of a row that a record's keys are mapped to."""


class Convention(BaseModel):
    """A tool's names for the fields of a labelled item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    fields: FieldMap


CONVENTIONS = (
    Convention(
        name="offline-recall", fields=FieldMap(ground_truth=("ground_truth", "groundTruth"))
    ),
    Convention(name="Mastra", fields=FieldMap(ground_truth=("groundTruth", "ground_truth"))),
    Convention(
        name="RAGAS",
        fields=FieldMap(
            input=("user_input",),
            ground_truth=("reference",),
            context=("retrieved_contexts",),
            output=("response",),
        ),
    ),
)
"""Known conventions; on a tie in detection the first listed wins."""


class Detection(BaseModel):
    """How a dataset was read: its format, the field names found, and the keys each field uses.

    Records of one file may follow different conventions (rows appended from another tool):
    each record is read by the file's names unless it holds none of their context keys and
    another convention's names fit it (see `fields_for`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: InputFormat
    convention: str
    mapped: dict[str, str]
    fields: FieldMap
    found: dict[str, str | None]
    others: tuple[str, ...] = ()
    """Other conventions that records of the detection sample follow."""

    def fields_for(self, keys: Collection[str]) -> FieldMap:
        """The names a record with these keys is read by: the file's, unless the record holds
        none of its context keys and another convention's context key is among them."""
        if any(k in keys for k in self.fields.context):
            return self.fields
        other = _mapped(_best(keys), self.mapped)
        return other if any(k in keys for k in other.context) else self.fields

    def describe(self) -> str:
        """One line, e.g. `JSON Lines, Mastra field names: input=input, context=context`."""
        names = ", ".join(f"{f}={k}" for f, k in self.found.items() if k is not None)
        mapped = " with " + " ".join(f"--map {f}={c}" for f, c in self.mapped.items())
        others = (
            f" (some rows in {' and '.join(self.others)} names, each read by its own)"
            if self.others
            else ""
        )
        return (
            f"{self.format}, {self.convention} field names{mapped if self.mapped else ''}"
            f"{others}: {names}"
        )

    def warnings(self) -> list[str]:
        """Fields no record has, where that changes every item's outcome."""
        if self.found["ground_truth"] is None and not self.others:
            keys = ", ".join(self.fields.ground_truth)
            return [
                f"no {keys} in the data: every item scores 0 as no_ground_truth "
                "(name the column with --map ground_truth=COLUMN)"
            ]
        return []


def parse_mapping(items: Sequence[str]) -> dict[str, str]:
    """`field=column` pairs from the command line, checked against the fields of a row."""
    mapping: dict[str, str] = {}
    for item in items:
        field, sep, column = item.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not column:
            raise DatasetError(f"--map {item!r}: expected FIELD=COLUMN, e.g. context=contexts")
        if field not in FIELDS:
            raise DatasetError(
                f"--map {item!r}: unknown field {field!r}; fields: {', '.join(FIELDS)}"
            )
        mapping[field] = column
    return mapping


def _matches(convention: Convention, keys: Collection[str]) -> int:
    fields = convention.fields
    return sum(getattr(fields, f)[0] in keys for f in ("input", "ground_truth", "context"))


def _best(keys: Collection[str]) -> Convention:
    """The convention whose names most fields match (first listed on a tie)."""
    return max(CONVENTIONS, key=lambda c: (_matches(c, keys), -CONVENTIONS.index(c)))


def _mapped(convention: Convention, mapped: Mapping[str, str]) -> FieldMap:
    return convention.fields.model_copy(update={f: (c,) for f, c in mapped.items()})


def detect(
    fmt: InputFormat,
    columns: Sequence[str],
    mapped: Mapping[str, str],
    records: Sequence[Collection[str]] = (),
) -> Detection:
    """The convention most of the sampled `records` (each a record's keys) follow, else the
    one `columns` match best; then `mapped`. Other conventions the records follow are noted."""
    present = set(columns)
    per_record = [_best(keys) for keys in records]
    if per_record:
        best = max(
            CONVENTIONS,
            key=lambda c: (per_record.count(c), _matches(c, present), -CONVENTIONS.index(c)),
        )
    else:
        best = _best(present)
    fields = _mapped(best, mapped)
    found = {f: next((k for k in getattr(fields, f) if k in present), None) for f in FIELDS}
    detection = Detection(
        format=fmt, convention=best.name, mapped=dict(mapped), fields=fields, found=found
    )
    others = {_best(k).name: None for k in records if detection.fields_for(k) != fields}
    return detection.model_copy(update={"others": tuple(others)}) if others else detection
