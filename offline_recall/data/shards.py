"""A dataset file cut into shards: contiguous runs of records that can be read on their own.

A shard of JSON Lines or CSV is a byte range that starts at a record's first byte, with the
number its first line (JSON Lines) or record (CSV) has in the whole file; a shard of Parquet is
a range of rows in one row group. Reading a shard gives exactly the rows, numbers and row
errors that reading the whole file gives for those records, so shards scored apart add up to
the whole run. The plan is a function of the file and the shard size alone: a run resumed
later cuts the same shards.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import islice
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import DatasetError
from .csv_text import CsvText, csv_reader, csv_rows
from .dataset import Dataset, Row, RowError
from .lines import byte_lines, is_blank
from .readers import InputFormat, Record, batch_records, jsonl_lines, parquet_file


class Shard(BaseModel):
    """One shard of a dataset file; its index is its place in the file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    records: int = Field(description="Records in the shard (rows and row errors)")
    number: int = Field(description="The first line's (JSON Lines) or record's number")
    start: int = Field(description="Byte offset; for Parquet, the first row in `group`")
    end: int = Field(description="Byte offset past the shard; for Parquet, the row past it")
    group: int | None = Field(default=None, description="Parquet: the row group")


class ShardPlan(BaseModel):
    """How a dataset file is cut: CSV shards also need the header they were cut after."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shards: tuple[Shard, ...]
    header: tuple[str, ...] | None = None


class _Cutter:
    """Closes a shard every `size` records, at the byte where the next record starts."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.shards: list[Shard] = []
        self._start = self._number = self._records = 0

    def record(self, offset: int, number: int) -> None:
        if self._records == self.size:
            self.close(offset)
        if self._records == 0:
            self._start, self._number = offset, number
        self._records += 1

    def close(self, end: int) -> None:
        if self._records:
            self.shards.append(
                Shard(
                    index=len(self.shards),
                    records=self._records,
                    number=self._number,
                    start=self._start,
                    end=end,
                )
            )
        self._records = 0


def _plan_jsonl(dataset: Dataset, size: int) -> ShardPlan:
    cutter = _Cutter(size)
    with dataset.path.open("rb") as f:
        for number, (offset, line) in enumerate(byte_lines(f), start=1):
            if not is_blank(line):
                cutter.record(offset, number)
        cutter.close(f.tell())
    return ShardPlan(shards=tuple(cutter.shards))


def _plan_csv(dataset: Dataset, size: int) -> ShardPlan:
    cutter = _Cutter(size)
    with dataset.path.open("rb") as f:
        text = CsvText(f, dataset.path.name)
        reader = csv_reader(text, delimiter=dataset.delimiter or ",")
        header = tuple(reader.fieldnames or ())
        start = text.consumed
        for number, _ in csv_rows(reader, text):
            # a record starts where the one before it ended (blank lines ahead of it are its own)
            cutter.record(start, number)
            start = text.consumed
        cutter.close(text.consumed)
    return ShardPlan(shards=tuple(cutter.shards), header=header)


def _plan_parquet(dataset: Dataset, size: int) -> ShardPlan:
    metadata = parquet_file(dataset.path).metadata
    shards: list[Shard] = []
    number = 1
    for group in range(metadata.num_row_groups):
        rows = int(metadata.row_group(group).num_rows)
        for start in range(0, rows, size):
            end = min(start + size, rows)
            shards.append(
                Shard(
                    index=len(shards),
                    records=end - start,
                    number=number + start,
                    start=start,
                    end=end,
                    group=group,
                )
            )
        number += rows
    return ShardPlan(shards=tuple(shards))


def plan_shards(dataset: Dataset, size: int) -> ShardPlan:
    """Cut `dataset` into shards of `size` records (the last of a file or row group may hold
    fewer). One pass over a text file; Parquet's row counts come from its footer."""
    if size < 1:
        raise ValueError("a shard holds at least one record")
    planners = {
        InputFormat.JSONL: _plan_jsonl,
        InputFormat.CSV: _plan_csv,
        InputFormat.PARQUET: _plan_parquet,
    }
    planner = planners.get(dataset.detection.format)
    if planner is None:
        raise DatasetError(
            f"{dataset.path.name}: a {dataset.detection.format} file cannot be read in shards; "
            "convert it to JSON Lines (one object per line)"
        )
    return planner(dataset, size)


class _Range(io.RawIOBase):
    """The bytes of a file from `start` to `end`, read as they are needed."""

    def __init__(self, f: IO[bytes], start: int, end: int) -> None:
        f.seek(start)
        self._f = f
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._f.read(min(len(view), self._left))
        view[: len(data)] = data
        self._left -= len(data)
        return len(data)


def _text_records(dataset: Dataset, plan: ShardPlan, shard: Shard) -> Iterator[Record]:
    # Decoded as the whole file is: the same codec, error handling and newline rules.
    with dataset.path.open("rb") as f:
        raw = io.BufferedReader(_Range(f, shard.start, shard.end))
        if dataset.detection.format != InputFormat.CSV:
            yield from jsonl_lines(raw, first=shard.number)
            return
        text = CsvText(raw, dataset.path.name, shard.start, first=shard.number)
        reader = csv_reader(text, plan.header, dataset.delimiter or ",")
        yield from csv_rows(reader, text, first=shard.number)


def _group_records(dataset: Dataset, group: int, shards: list[Shard]) -> Iterator[Record]:
    """The records of `shards` (of one row group, in row order), in one pass over the group."""
    wanted = shards
    base = wanted[0].number - wanted[0].start  # the group's first row's number
    end = wanted[-1].end
    position = 0
    batches = parquet_file(dataset.path).iter_batches(batch_size=1024, row_groups=[group])
    for batch in batches:
        if position >= end:
            return
        if any(position < s.end and s.start < position + batch.num_rows for s in wanted):
            for offset, record in enumerate(batch_records(batch), start=position):
                if any(s.start <= offset < s.end for s in wanted):
                    yield base + offset, record
        position += batch.num_rows


def read_shards(
    dataset: Dataset, plan: ShardPlan, shards: list[Shard]
) -> Iterator[tuple[Shard, list[Row | RowError]]]:
    """Each of `shards` with its rows, exactly as reading the whole file gives them. Parquet
    shards of one row group are read in one pass over it."""
    reader = dataset.reader
    if dataset.detection.format != InputFormat.PARQUET:
        for shard in shards:
            rows = [reader.row(n, r) for n, r in _text_records(dataset, plan, shard)]
            yield shard, rows
        return
    groups: dict[int, list[Shard]] = {}
    for shard in shards:
        assert shard.group is not None, "a Parquet shard names its row group"
        groups.setdefault(shard.group, []).append(shard)
    for group, members in groups.items():
        members.sort(key=lambda s: s.start)
        records = _group_records(dataset, group, members)
        for shard in members:
            yield shard, [reader.row(n, r) for n, r in islice(records, shard.records)]
