"""What reading an input costs never grows past a stated limit: a JSON Lines line longer than
`MAX_LINE_BYTES` is that row's error, read past without being held; a CSV record or a JSON
document past its limit is one line; text quoted in a message is cut before it is escaped."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.cli.summary import failed_lines
from offline_recall.data import input_copy, lines
from offline_recall.data.dataset import RowError, open_dataset
from offline_recall.data.lines import LongLine, byte_lines
from offline_recall.data.shards import plan_shards, read_shards
from offline_recall.errors import DatasetError
from offline_recall.printable import printable
from offline_recall.runs.results import ItemRecord
from offline_recall.scorer.registry import RECALL

GOOD = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]}
LIMIT = 4096
"""The line limit these tests read under, so that a few kilobytes exceed it."""


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", LIMIT)
    monkeypatch.setattr(lines, "MAX_DOCUMENT_BYTES", LIMIT)
    yield


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("r.jsonl")
    command = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *args]
    return CliRunner().invoke(main, command)


def _peak(work: Callable[[], Any]) -> int:
    """The most memory `work` held at once, in bytes, as tracemalloc counts it."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# JSON Lines: a long line is its row's error, and the next lines are read.


def test_a_jsonl_line_over_the_limit_is_its_rows_error_and_the_run_goes_on(
    tmp_path: Path, small_limit: None
) -> None:
    data = tmp_path / "data.jsonl"
    long = {**GOOD, "input": "x" * (2 * LIMIT)}
    data.write_text("\n".join(json.dumps(r) for r in [GOOD, long, GOOD]) + "\n")
    result = _score(data)
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    statuses = [r["results"][RECALL]["status"] for r in out]
    assert statuses == ["ok", "error", "ok"]
    error = out[1]["results"][RECALL]["error"]
    assert (
        error == f"the line is longer than 4096 bytes ({len(json.dumps(long)) + 1} bytes): not read"
    )
    assert "failed: line 2: the line is longer than 4096 bytes" in result.output


def test_shards_read_a_long_line_as_the_whole_file_does(tmp_path: Path, small_limit: None) -> None:
    data = tmp_path / "data.jsonl"
    long = {**GOOD, "input": "x" * (3 * LIMIT)}
    data.write_text("\n".join(json.dumps(r) for r in [GOOD, long, GOOD, long, GOOD]) + "\n")
    dataset = open_dataset(data)
    whole = list(dataset.rows())
    assert dataset.total == len(whole) == 5
    assert [isinstance(r, RowError) for r in whole] == [False, True, False, True, False]
    plan = plan_shards(dataset, 2)
    sharded = [r for _, rows in read_shards(dataset, plan, list(plan.shards)) for r in rows]
    assert sharded == whole


@pytest.mark.parametrize("breaks", [b"\n", b"\r\n", b"\r"])
def test_lines_are_split_as_text_mode_splits_them_across_reads(
    monkeypatch: pytest.MonkeyPatch, breaks: bytes
) -> None:
    """A line break that straddles two reads (`\\r` ending one, `\\n` starting the next) is one."""
    import io

    monkeypatch.setattr(lines, "_BLOCK", 3)
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 6)
    text = breaks.join([b"ab", b"", b"abcdefghij", b"c", b"de"]) + breaks + b"tail"
    found = list(byte_lines(io.BytesIO(text)))
    expected = io.TextIOWrapper(io.BytesIO(text), newline=None).readlines()
    assert len(found) == len(expected)
    assert [line for _, line in found if isinstance(line, LongLine)] == [LongLine(10 + len(breaks))]
    offsets = [offset for offset, _ in found]
    sizes = [lines.line_size(line) for _, line in found]
    assert offsets == [sum(sizes[:i]) for i in range(len(sizes))] and sum(sizes) == len(text)


def test_a_long_jsonl_line_is_never_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An 8 MB line under a 64 KiB limit: the file is opened and its rows read holding about
    one read block (the copy of its bytes kept on disk past `IN_MEMORY`)."""
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 64 * 1024)
    monkeypatch.setattr(input_copy, "IN_MEMORY", 64 * 1024)
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(GOOD) + "\n" + '{"input": "' + "x" * 8_000_000 + '"}\n')
    peak = _peak(lambda: list(open_dataset(data).rows()))
    assert peak < 4_000_000, peak


# JSON: a document is read whole, up to its limit.


def test_a_json_document_over_the_limit_is_one_line(tmp_path: Path, small_limit: None) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps([GOOD] * 100))
    result = _score(data)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: data.json: a JSON file is read whole, and this one is larger than 4096 bytes; "
        "give its rows as JSON Lines (.jsonl, one object per line)"
    )


def test_a_json_document_within_the_limit_is_read(tmp_path: Path, small_limit: None) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps([GOOD] * 3))
    assert _score(data).exit_code == 0


# CSV: a record (a cell, a header) past the limit is one line.


def _csv(path: Path, header: str, *rows: str) -> Path:
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_csv_cell_over_the_limit_is_one_line_naming_its_row(
    tmp_path: Path, small_limit: None
) -> None:
    data = _csv(
        tmp_path / "data.csv",
        "ground_truth,context",
        'A.,"[""a""]"',
        "B.," + "x" * (2 * LIMIT),
    )
    result = _score(data)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].startswith(
        "Error: data.csv: row 2 is longer than 4096 bytes of CSV; a quote opened and never "
        "closed reads on to the end of the file"
    )


def test_a_csv_quote_never_closed_is_one_line_not_the_file_read_whole(
    tmp_path: Path, small_limit: None
) -> None:
    short = [f"A.,a{i}" for i in range(2 * LIMIT // 8)]
    data = _csv(tmp_path / "data.csv", "ground_truth,context", 'B.,"never closed', *short)
    with pytest.raises(DatasetError, match="row 1 is longer than 4096 bytes of CSV"):
        open_dataset(data)


def test_a_csv_header_over_the_limit_is_one_line(tmp_path: Path, small_limit: None) -> None:
    header = ",".join(f"column{i}" for i in range(LIMIT))
    data = _csv(tmp_path / "data.csv", header, "a")
    with pytest.raises(DatasetError, match=r"data\.csv: the header is longer than 4096 bytes"):
        open_dataset(data)


def test_a_csv_cell_is_never_held_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 64 * 1024)
    monkeypatch.setattr(input_copy, "IN_MEMORY", 64 * 1024)  # the file's copy kept on disk
    data = _csv(tmp_path / "data.csv", "ground_truth,context", "A.," + "x" * 8_000_000)

    def refused() -> None:
        with pytest.raises(DatasetError, match="row 1 is longer"):
            open_dataset(data)

    assert _peak(refused) < 4_000_000


def test_csv_shards_cut_and_read_as_the_whole_file(tmp_path: Path) -> None:
    data = _csv(
        tmp_path / "data.csv",
        "\ufeffground_truth,context",
        'A.,"[""a""]"',
        'B.,"[""multi\nline""]"',
        'C.,"[""c""]"\r',
    )
    dataset = open_dataset(data)
    whole = list(dataset.rows())
    plan = plan_shards(dataset, 1)
    sharded = [r for _, rows in read_shards(dataset, plan, list(plan.shards)) for r in rows]
    assert sharded == whole and len(whole) == dataset.total == 3


# Text from data in messages: cut before it is escaped.


def test_printable_cuts_before_it_escapes() -> None:
    text = "\x01" * 1_000_000
    assert printable(text, 9) == "\\x01\\x01…"
    assert _peak(lambda: printable(text)) < 1_000_000


def test_a_header_of_control_characters_is_refused_in_a_short_line_at_a_small_cost(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data.csv"
    data.write_bytes(b"\x01\x02" * 1_000_000 + b"\nA\n")
    runner = CliRunner()
    out = str(tmp_path / "r.jsonl")
    command = ["score", str(data), "--backend", "fake", "--out", out]
    result: list[Result] = []
    peak = _peak(lambda: result.append(runner.invoke(main, command)))
    assert result[0].exit_code == 1
    said = result[0].output.splitlines()[-1]
    assert said.startswith("Error: data.csv: no context field for the context") or (
        "for the context" in said
    ), said
    assert len(said) < 1000, len(said)
    assert peak < 40_000_000, peak  # 2 MB of header: 20 bytes a byte at most


def test_a_failed_rows_long_id_and_reason_are_cut_before_escaping() -> None:
    row = RowError(line=3, id="\x01" * 1_000_000, message="line 3: x")
    record = ItemRecord.of(row, {RECALL: _error_result("\x02" * 1_000_000)}, None)
    found: list[list[str]] = []
    peak = _peak(lambda: found.append(failed_lines([record], 1, "r.jsonl")))
    first = found[0][0]
    assert first.startswith("failed: line 3 (id \\x01\\x01")
    assert len(first) < 1200, len(first)
    assert peak < 1_000_000, peak


def _error_result(error: str) -> Any:
    from offline_recall.metrics.recall.result import RecallResult

    return RecallResult(
        scorer=RECALL,
        score=None,
        reason="Not scored",
        status="error",
        error=error,
        model_fingerprint="fake@0",
        judge_profile=None,
        prompt_version="v5",
        library_version="0",
    )


# Parquet: a column named twice is refused, as in CSV.


def test_a_parquet_column_named_twice_is_refused(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "data.parquet"
    columns = [pa.array(["A."]), pa.array(['["a"]']), pa.array(['["b"]'])]
    pq.write_table(
        pa.Table.from_arrays(columns, names=["ground_truth", "context", "context"]), data
    )
    result = _score(data)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: data.parquet: the schema names 'context' more than once; give each column its "
        "own name"
    )


def test_a_servers_long_value_is_quoted_at_the_cost_of_what_is_shown() -> None:
    from offline_recall.engines.openai import Malformed, logprob

    value = "\x01" * 4_000_000
    caught: list[Exception] = []

    def read() -> None:
        try:
            logprob(value)
        except Malformed as e:
            caught.append(e)

    assert _peak(read) < 200_000
    assert str(caught[0]).startswith("a log-probability is '\\x01") and len(str(caught[0])) < 100


def test_a_file_whose_only_line_is_too_long_says_why_its_row_cannot_be_scored(
    tmp_path: Path, small_limit: None
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(b"\x00" * (3 * LIMIT))  # a sparse file: no line break at all
    result = _score(data)
    assert result.exit_code == 1
    assert result.output.splitlines()[-2:] == [
        "Error: data.jsonl: none of its 1 rows can be scored:",
        f"  line 1: the line is longer than 4096 bytes ({3 * LIMIT} bytes): not read",
    ]


def test_a_json_file_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lines, "MAX_DOCUMENT_BYTES", 1_000_000)
    data = tmp_path / "data.json"
    with data.open("wb") as f:
        f.truncate(50_000_000)  # sparse: no cost to make, 50 MB to read
    refused: list[Exception] = []

    def read() -> None:
        try:
            open_dataset(data)
        except DatasetError as e:
            refused.append(e)

    assert _peak(read) < 1_000_000
    assert "data.json: a JSON file is read whole, and this one is larger than 1000000 bytes" in (
        str(refused[0])
    )
