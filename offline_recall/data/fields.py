"""Field names: which key or column of a record holds each field of a row.

Names are detected from the keys or columns (Mastra's, RAGAS's or our own) and reported;
`--map field=column` names anything else.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import DatasetError
from ..printable import listed
from .csv_text import DELIMITERS, delimiter_counts, delimiter_words
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
            input=("user_input", "question"),
            ground_truth=("reference", "ground_truth", "ground_truths"),
            context=("retrieved_contexts", "contexts"),
            output=("response", "answer"),
        ),
    ),
)
"""Known conventions; on a tie in detection the first listed wins. RAGAS's older names
(`question`, `answer`, `contexts`, `ground_truth`, `ground_truths`) follow its newer ones."""

FIELD_WORDS = {
    "id": "an id",
    "input": "a question",
    "ground_truth": "a ground truth",
    "context": "a context",
    "output": "an output",
}
"""Each field of a row in words, as messages name it."""

LISTED_GROUND_TRUTH = "ground_truths"
"""RAGAS's older key for a list of ground truths: read as one, joined by newlines."""


def names_of(field: str) -> tuple[str, ...]:
    """Every convention's keys for `field` (one of `FIELDS`), ours first."""
    return tuple(dict.fromkeys(k for c in CONVENTIONS for k in getattr(c.fields, field)))


CLOSE = 0.8
"""How alike a key and a field's name must be (difflib's ratio) to be offered as a misspelling."""


def close_name(keys: Iterable[str], names: Sequence[str]) -> tuple[str, str] | None:
    """A key that looks like one of `names` misspelt (`ground_turth`, `Context`), with that
    name; None when none does. Only the first keys, and short ones, are compared."""
    for key in islice(keys, 1000):
        if len(key) > 64 or key in names:
            continue
        found = difflib.get_close_matches(key, names, n=1, cutoff=CLOSE)
        if found:
            return key, found[0]
    return None


def ground_truth_value(key: str, value: Any) -> Any:
    """A ground truth as read from `key`: a `ground_truths` list of strings joined by newlines
    (every reference answer is one text to extract claims from), anything else as given."""
    listed = key == LISTED_GROUND_TRUTH and isinstance(value, list)
    if listed and all(isinstance(v, str) for v in value):  # a list holding more is refused
        return "\n".join(value)
    return value


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
    columns: tuple[str, ...] = ()
    """Every key or column the records read to detect the names hold."""
    ground_truth: bool = True
    """Whether any of those records holds a ground truth under the names it is read by."""
    delimiter: str | None = None
    """A CSV file's delimiter, as given or as its header line shows it."""

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
        kind = str(self.format)
        if self.delimiter is not None:
            kind += f" delimited by {delimiter_words(self.delimiter)}"
        mapped = " with " + " ".join(f"--map {f}={c}" for f, c in self.mapped.items())
        others = (
            f" (some rows in {' and '.join(self.others)} names, each read by its own)"
            if self.others
            else ""
        )
        return (
            f"{kind}, {self.convention} field names{mapped if self.mapped else ''}{others}: {names}"
        )

    def missing_ground_truth(self, name: str, needed_by: str) -> str | None:
        """Why scorers of the ground truth (`needed_by`) cannot score file `name`: no record
        read to detect the names holds one. One line naming the fields the records have and
        the option that names the column; None when some record has a ground truth."""
        return None if self.ground_truth else self.missing("ground_truth", name, needed_by)

    def missing(self, field: str, name: str, needed_by: str) -> str:
        """Why scorers that read `field` (`needed_by`) cannot score file `name`: no row has
        it. One line naming the keys it is read from (or the --map that took them), the
        fields the records have and the option that names its column."""
        keys = getattr(self.fields, field)
        if not keys:
            return (
                f"{name}: no column is left for {FIELD_WORDS[field]}, which {needed_by} needs: "
                f"{self.taken(field)}; {self.advice(field)}"
            )
        return (
            f"{name}: no row has {FIELD_WORDS[field]} ({' or '.join(keys)}, {self.convention} "
            f"names), which {needed_by} needs; {self.advice(field)}"
        )

    def advice(self, field: str, how: str = "name its column") -> str:
        """How to name the column of `field`, which no column holds, with the fields there
        are: `how` with `--map FIELD=COLUMN`, or, for a column that looks like one of its names
        misspelt, `did you mean ground_truth ...`; and a header that looks split at another
        delimiter than the one read."""
        used = set(self.found.values())
        close = close_name(
            (c for c in self.columns if c not in used),
            [*names_of(field), *getattr(self.fields, field)],
        )
        said = f"{how} with --map {field}=COLUMN"
        if close is not None:
            column, meant = close
            said = (
                f"did you mean {meant} (the column {column})? read it with --map {field}={column}"
            )
        said += f" (fields: {listed(self.columns) or 'none'})"
        joined = self.joined_by()
        if joined is not None:
            shown = "\\t" if joined == "\t" else joined
            said += f"; the header looks delimited by {joined!r}: pass --delimiter '{shown}'"
        return said

    def joined_by(self) -> str | None:
        """Another delimiter than the one read that a CSV header's names hold (the file looks
        split at it), or None."""
        if self.delimiter is None:
            return None
        counts = dict.fromkeys(DELIMITERS, 0)
        for column in islice(self.columns, 1000):
            for d, n in delimiter_counts(column[:1000]).items():
                counts[d] += n
        others = [d for d in DELIMITERS if d != self.delimiter and counts[d]]
        return max(others, key=lambda d: counts[d]) if others else None

    def taken(self, field: str) -> str:
        """Which --map options read the names of `field` as other fields, in words
        (`--map input=context reads context as the input`)."""
        convention = next((c for c in CONVENTIONS if c.name == self.convention), CONVENTIONS[0])
        own = set(names_of(field)) | set(getattr(convention.fields, field))
        said = [
            f"--map {other}={column} reads {column} as {FIELD_WORDS[other]}"
            for other, column in self.mapped.items()
            if other != field and column in own
        ]
        return " and ".join(said) or f"--map leaves no name for {FIELD_WORDS[field]}"


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
        if field in mapping and mapping[field] != column:
            raise DatasetError(
                f"--map {field}= is given twice ({mapping[field]} and {column}); name one column"
            )
        mapping[field] = column
    return mapping


def _matches(convention: Convention, keys: Collection[str]) -> int:
    """How well `keys` fit `convention`: per field, 2 for its first name, 1 for another."""
    fields = convention.fields
    return sum(
        2 if names[0] in keys else int(any(k in keys for k in names[1:]))
        for names in (getattr(fields, f) for f in ("input", "ground_truth", "context"))
    )


def _best(keys: Collection[str]) -> Convention:
    """The convention whose names most fields match (first listed on a tie)."""
    return max(CONVENTIONS, key=lambda c: (_matches(c, keys), -CONVENTIONS.index(c)))


def _mapped(convention: Convention, mapped: Mapping[str, str]) -> FieldMap:
    """The convention's names with `mapped` fields read from their columns, and those columns
    read as nothing else (`--map ground_truth=answer` leaves RAGAS's `answer` no output)."""
    taken = set(mapped.values())
    fields = convention.fields
    kept = {f: tuple(k for k in getattr(fields, f) if k not in taken) for f in FIELDS}
    return fields.model_copy(update=kept | {f: (c,) for f, c in mapped.items()})


def _borrowed(fields: FieldMap, present: Collection[str], mapped: Mapping[str, str]) -> FieldMap:
    """`fields` with each field that none of its names finds (and no --map names) read from
    another convention's name for it that the columns hold: a `question` column among
    Mastra's names is the input, not metadata."""
    taken = set(mapped.values()) | {k for f in FIELDS for k in getattr(fields, f) if k in present}
    update: dict[str, tuple[str, ...]] = {}
    for field in FIELDS:
        names: tuple[str, ...] = getattr(fields, field)
        if field in mapped or any(k in present for k in names):
            continue
        other = next((k for k in names_of(field) if k in present and k not in taken), None)
        if other is not None:
            update[field] = (*names, other)
            taken.add(other)
    return fields.model_copy(update=update)


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
    own = _mapped(best, mapped)
    # Names are borrowed from the keys of the records the file's names read (a record of
    # another convention is read by its own names).
    read_here = [k for k in records if _best(k) is best or any(c in k for c in own.context)]
    fields = _borrowed(own, set().union(*read_here) if records else present, mapped)
    found = {f: next((k for k in getattr(fields, f) if k in present), None) for f in FIELDS}
    detection = Detection(
        format=fmt,
        convention=best.name,
        mapped=dict(mapped),
        fields=fields,
        found=found,
        columns=tuple(columns),
    )
    others = {_best(k).name: None for k in records if detection.fields_for(k) != fields}
    truth = any(
        any(k in keys for k in detection.fields_for(keys).ground_truth)
        for keys in (records or [present])
    )
    return detection.model_copy(update={"others": tuple(others), "ground_truth": truth})
