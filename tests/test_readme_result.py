"""The README's result line is the example's first row as the embedded model scores it now."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main

from .conftest import EXAMPLE

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_record() -> dict[str, object]:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- check: fake -->\n```json\n(\{\"line\": 1, .*?\n)```", text, re.DOTALL)
    assert found is not None, "README.md has no result-line block"
    record: dict[str, object] = json.loads(found.group(1))
    return record


@pytest.mark.model
def test_the_readme_result_line_matches_a_real_run(tmp_path: Path) -> None:
    data = tmp_path / "first.jsonl"
    data.write_text(EXAMPLE.read_text(encoding="utf-8").splitlines()[0] + "\n")
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--out", str(out), "--no-cache"])
    assert result.exit_code == 0, result.output
    real = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert readme_record() == real, (
        "README.md's result line differs from a real run; the real record is:\n"
        + json.dumps(real, ensure_ascii=False)
    )
