"""A CSV file is split where spreadsheets split it (a comma, a semicolon or a tab, read from its
header line, or `--delimiter`), and a field no column holds is named with what may explain it:
a column whose name looks misspelt, or a header that looks split at another delimiter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.data.csv_text import sniff_delimiter
from offline_recall.data.dataset import RowError, open_dataset
from offline_recall.data.shards import plan_shards, read_shards
from offline_recall.scorer.registry import RECALL

ROWS = [
    ("q1", "Where is the Louvre?", "The Louvre is in Paris.", '["The Louvre is in Paris."]'),
    ("q2", "What is 2+2?", "Two plus two is four; it is even.", '["2+2=4."]'),
]


def _csv(path: Path, delimiter: str, header: tuple[str, ...]) -> Path:
    import csv

    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(ROWS)
    return path


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("out.jsonl")
    command = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *args]
    return CliRunner().invoke(main, command)


RAGAS = ("id", "question", "ground_truth", "contexts")


@pytest.mark.parametrize(("delimiter", "words"), [(";", "semicolons"), ("\t", "tabs")])
def test_a_csv_delimited_as_a_spreadsheet_exports_it_is_read_and_named(
    tmp_path: Path, delimiter: str, words: str
) -> None:
    data = _csv(tmp_path / "data.csv", delimiter, RAGAS)
    result = _score(data)
    assert result.exit_code == 0, result.output
    assert f"reading data.csv: CSV delimited by {words}, RAGAS field names: id=id, " in (
        result.output
    )
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["q1", "q2"]
    assert records[1]["ground_truth"] == "Two plus two is four; it is even."
    assert records[0]["results"][RECALL]["status"] == "ok"
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text())
    assert manifest["input"]["delimiter"] is None  # read from the header, as --map is not given


def test_the_header_line_decides_outside_quotes_and_a_comma_wins_a_tie() -> None:
    assert sniff_delimiter("id;question;ground_truth;contexts\n") == ";"
    assert sniff_delimiter('"a;b;c",d,e\n') == ","
    assert sniff_delimiter("a\tb\tc\n") == "\t"
    assert sniff_delimiter("a;b,c\n") == ","
    assert sniff_delimiter("context\n") == ","


def test_a_delimiter_given_is_read_and_kept_as_part_of_the_run(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", "|", RAGAS)
    result = _score(data, "--delimiter", "|")
    assert result.exit_code == 0, result.output
    assert "CSV delimited by '|'" in result.output
    manifest = json.loads((tmp_path / "out.jsonl.manifest.json").read_text())
    assert manifest["input"]["delimiter"] == "|"
    semicolons = _csv(tmp_path / "data.csv", ";", RAGAS)
    first = _score(semicolons, "--restart", "--delimiter", ";")
    assert first.exit_code == 0, first.output
    again = _score(semicolons)  # the same store, the delimiter not given: as with --map
    assert again.exit_code == 1
    assert "holds another run (different delimiter ; vs None)" in again.output


def test_a_tab_is_given_as_backslash_t(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", "\t", RAGAS)
    result = _score(data, "--delimiter", "\\t")
    assert result.exit_code == 0, result.output
    assert "CSV delimited by tabs" in result.output


@pytest.mark.parametrize("given", ["ab", "", '"'])
def test_a_delimiter_that_is_not_one_character_is_refused(tmp_path: Path, given: str) -> None:
    data = _csv(tmp_path / "data.csv", ",", RAGAS)
    result = _score(data, "--delimiter", given)
    assert result.exit_code == 2
    assert "--delimiter" in result.output and "give one character" in result.output


def test_a_header_joined_by_another_delimiter_says_which_to_pass(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", ";", RAGAS)
    result = _score(data, "--delimiter", ",", "--map", "context=contexts")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].endswith(
        "(fields: id;question;ground_truth;contexts); the header looks delimited by ';': "
        "pass --delimiter ';'"
    )


def test_shards_split_a_semicolon_csv_as_the_whole_file(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", ";", RAGAS)
    dataset = open_dataset(data)
    whole = list(dataset.rows())
    assert not any(isinstance(r, RowError) for r in whole) and len(whole) == 2
    plan = plan_shards(dataset, 1)
    sharded = [r for _, rows in read_shards(dataset, plan, list(plan.shards)) for r in rows]
    assert sharded == whole


# A field no column holds: did you mean ...?


def test_a_misspelt_ground_truth_column_is_named_with_did_you_mean(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", ",", ("id", "input", "ground_turth", "context"))
    result = _score(data)
    assert result.exit_code == 1
    said = result.output.splitlines()[-1]
    assert "did you mean ground_truth (the column ground_turth)? read it with --map " in said
    assert "--map ground_truth=ground_turth (fields: id, input, ground_turth, context)" in said


def test_a_misspelt_context_column_is_named_with_did_you_mean(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", ",", ("id", "input", "ground_truth", "Context"))
    result = _score(data)
    assert result.exit_code == 1
    assert "did you mean context (the column Context)? read it with --map context=Context" in (
        result.output
    )


def test_a_row_whose_context_key_is_misspelt_is_its_own_error_saying_so(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    good = {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}
    bad = {"groundTruth": "Paris is in France.", "contxt": ["Paris is in France."]}
    data.write_text("".join(json.dumps(r) + "\n" for r in [good, bad]))
    result = _score(data)
    assert result.exit_code == 0, result.output
    assert "did you mean context (the field contxt)? read it with --map context=contxt" in (
        result.output
    )


def test_names_far_from_every_field_get_no_guess(tmp_path: Path) -> None:
    data = _csv(tmp_path / "data.csv", ",", ("id", "input", "label", "context"))
    result = _score(data)
    assert result.exit_code == 1
    assert "did you mean" not in result.output
    assert "name its column with --map ground_truth=COLUMN" in result.output
