"""A `ray.data.Dataset` scored on Ray: for pipelines that build their data in Ray already.

The rows are records (the columns of a data file); the result is a Dataset of result rows with
the columns of a Parquet result file. Scoring is the Ray runner's: an actor pool whose workers
build the scorers from the run spec once and score a window at a time.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from ..data.dataset import RowReader, require_context
from ..data.fields import detect
from ..data.readers import InputFormat, batch_records
from ..engines import engine_kind
from ..scorer.registry import reads_context
from .ray_workers import RayOptions, Worker, actor_args, connect, require_ray
from .results import parquet_row, parquet_schema
from .spec import RunSpec


class RecordScorer(Worker):
    """Scores batches of a Dataset's records into result rows (a Parquet result's columns)."""

    def __init__(self, spec_json: str, claim_cache: bool, reader: RowReader, line: str) -> None:
        super().__init__(spec_json, claim_cache)
        self._reader = reader
        self._line = line
        self._schema = parquet_schema(RunSpec.model_validate_json(spec_json).scorer_ids)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows = []
        numbers = batch.column(self._line).to_pylist()
        for number, record in zip(numbers, batch_records(batch), strict=True):
            if isinstance(record, dict):
                del record[self._line]
            rows.append(self._reader.row(int(number), record))
        scored = [parquet_row(r) for r in self.score(rows)]
        return pa.Table.from_pylist(scored, schema=self._schema)


def _numbered(ds: Any, column: str) -> Any:
    """`ds` with each row's position (from 1) in `column`: the rows are materialised in
    order, each block numbered after the blocks before it."""
    ray = require_ray()
    ds.context.execution_options.preserve_order = True
    refs = ds.to_arrow_refs()
    count = ray.remote(lambda table: table.num_rows)
    sizes = ray.get([count.remote(r) for r in refs])
    firsts = itertools.accumulate([1, *sizes[:-1]])

    def number(table: Any, first: int) -> Any:
        import pyarrow as pa

        return table.append_column(column, pa.array(range(first, first + table.num_rows)))

    numbered = ray.remote(number)
    return ray.data.from_arrow_refs(
        [numbered.remote(r, f) for r, f in zip(refs, firsts, strict=True)]
    )


def score_dataset(
    ds: Any,
    spec: RunSpec,
    *,
    mapping: Mapping[str, str] | None = None,
    context_separator: str | None = None,
    line_column: str | None = None,
    options: RayOptions | None = None,
) -> Any:
    """Score a `ray.data.Dataset` of records as `spec` says; returns the Dataset of results.

    Fields are detected from the columns as for a file (`mapping` as `--map`); a string
    context cell is read as in CSV and Parquet (`context_separator` as `--context-sep`). A
    row's `line` is read from `line_column` when given; otherwise rows are numbered 1, 2, ...
    in the Dataset's order, which materialises it first. Each result row has the columns of
    a Parquet result file, and a record that cannot be scored is its row-level error.
    """
    options = options or RayOptions()
    connect(options)
    columns = [c for c in ds.columns() or [] if c != line_column]
    detection = detect(InputFormat.RAY, columns, dict(mapping or {}))
    context_required = reads_context(s.id for s in spec.scorers)
    if context_required:
        require_context(detection, columns, "the dataset")
    if line_column is None:
        line_column = "_offline_recall_line"
        ds = _numbered(ds, line_column)
    window = engine_kind(spec.engine.name).window
    return ds.map_batches(
        RecordScorer,
        batch_size=window,
        batch_format="pyarrow",
        fn_constructor_kwargs={
            "spec_json": spec.model_dump_json(),
            "claim_cache": options.claim_cache,
            "reader": RowReader(detection, context_separator, context_required),
            "line": line_column,
        },
        **actor_args(options),
    )
