"""Text from data is printed escaped on every line a command prints: a dataset cannot send an
escape sequence, a C1 control or a bidi override to the terminal, or forge a line of its own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.engines.manifests import bundled_manifests
from offline_recall.printable import printable

HOSTILE = "x\x1b[2J\x9b31m\u202eevil\r\nmean recall 1.0000"
"""An erase-screen sequence, a C1 CSI, a right-to-left override and a forged summary line."""
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What no printed text may hold (a line break ends a line, and is checked apart)."""


def _clean(result: Result) -> None:
    assert not RAW.findall(result.output), RAW.findall(result.output)
    forged = [line for line in result.output.splitlines() if line.startswith("mean recall 1.0000")]
    assert forged == [], result.output
    assert "\\x1b[2J" in result.output and "\\u202e" in result.output


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x1b[31mb", "a\\x1b[31mb"),
        ("a\x9bb", "a\\x9bb"),
        ("a\u202eb\u2066c", "a\\u202eb\\u2066c"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("a\u2028b\x00", "a\\u2028b\\x00"),
        ("Paris, 東京, مرحبا, 😀", "Paris, 東京, مرحبا, 😀"),
    ],
)
def test_printable_escapes_every_control_and_line_break(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_printable_keeps_the_lines_of_a_message_when_asked() -> None:
    assert printable("first\x1b\nsecond", lines=True) == "first\\x1b\nsecond"


def test_failed_lines_print_the_id_and_reason_escaped(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [
        {"id": HOSTILE, "groundTruth": "Paris is in France.", "context": "not a list"},
        {"id": "ok", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(tmp_path / "r.jsonl")]
    )
    assert result.exit_code == 0, result.output
    assert "failed: line 1 (id x\\x1b[2J" in result.output
    _clean(result)


def _run(folder: Path, name: str, context: str) -> Path:
    data = folder / f"{name}.data.jsonl"
    row = {"id": HOSTILE, "groundTruth": f"Paris is in France {HOSTILE}.", "context": [context]}
    data.write_text(json.dumps(row) + "\n")
    out = folder / f"{name}.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_compare_prints_item_lines_escaped(tmp_path: Path) -> None:
    a = _run(tmp_path, "a", f"Paris is in France {HOSTILE}.")
    b = _run(tmp_path, "b", "Rome is in Italy.")
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--pair-by", "id"])
    assert result.exit_code == 0, result.output
    assert "verdict flips: 2 claims in 1 item" in result.output
    _clean(result)
    c = _run(tmp_path, "c", "Nothing here.")
    ranked = CliRunner().invoke(main, ["compare", str(a), str(b), str(c), "--pair-by", "id"])
    assert ranked.exit_code == 0, ranked.output
    _clean(ranked)


def test_models_list_prints_a_manifest_escaped(tmp_path: Path) -> None:
    bundled = bundled_manifests()[0].read_text(encoding="utf-8")
    name = json.dumps(HOSTILE)  # a TOML basic string holds JSON's escapes
    crafted = re.sub(r'(?m)^name = ".*"$', lambda _: f"name = {name}", bundled, count=1)
    crafted = re.sub(r'(?m)^family = ".*"$', lambda _: f"family = {name}", crafted, count=1)
    assert crafted != bundled
    path = tmp_path / "crafted.toml"
    path.write_text(crafted, encoding="utf-8")
    result = CliRunner().invoke(main, ["models", "list", str(path)])
    assert result.exit_code == 0, result.output
    _clean(result)


def test_an_error_quoting_the_data_is_printed_escaped(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text(f"{HOSTILE.replace(chr(10), '').replace(chr(13), '')},other\n1,2\n")
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake"])
    assert result.exit_code == 1
    assert "Error:" in result.output
    assert not RAW.findall(result.output), result.output
    assert "\\x1b[2J" in result.output
