"""What `models list` and the score summary look like on an ordinary terminal."""

from __future__ import annotations

import io
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from offline_recall.cli import main
from offline_recall.cli.summary import summary_table
from offline_recall.metrics.recall import ID as RECALL
from offline_recall.runs.resolve import resolve_spec
from offline_recall.runs.summary import Tally
from offline_recall.scorer.results import Status

ROOT = Path(__file__).resolve().parents[2]


def test_models_list_fits_100_columns_and_names_the_family() -> None:
    result = CliRunner().invoke(main, ["models", "list"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 100, result.output
    row = next(line for line in lines if "smollm2-135m-instruct@" in line)
    assert "llama" in row and "gguf" not in row
    assert "one token each" not in result.output
    assert 'P(yes) from the tokens of "yes" and "no"' in result.output


def test_a_pinned_family_with_many_answer_spellings_fits_too(tmp_path: Path) -> None:
    bundled = (ROOT / "models" / "smollm2-135m-instruct.toml").read_text(encoding="utf-8")
    spellings = ["yes", " yes", "Yes", " Yes", "YES", " YES"]
    yes = ", ".join(f'{{text = "{t}", id = {30000 + i}}}' for i, t in enumerate(spellings))
    nos = ["no", " no", "No", " No", "NO", " NO"]
    no = ", ".join(f'{{text = "{t}", id = {31000 + i}}}' for i, t in enumerate(nos))
    manifest = tmp_path / "wide.toml"
    manifest.write_text(
        bundled.replace('name = "smollm2-135m-instruct"', 'name = "a-rather-long-model-name-7b"')
        .replace('family = "llama"', 'family = "gemma3_text"\nsystem_turn = "fold"')
        .replace("[source]", f"answers = {{yes = [{yes}], no = [{no}]}}\n\n[source]"),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["models", "list", str(manifest)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100, result.output
    assert "tokens summed for yes: 'yes'=30000" in result.output
    assert "tokens summed for no: 'no'=31000" in result.output
    assert "rendering: system folded into user" in result.output


def test_the_summary_shows_the_whole_fingerprint_at_80_columns() -> None:
    spec = resolve_spec(engine="fake").model_copy(
        update={"model_fingerprint": "smollm2-135m-instruct@9634263adf6bc976"}
    )
    tally = Tally()
    summary = tally.summary().model_copy(
        update={
            "mean": 0.5,
            "mean_with_ground_truth": 0.75,
            "items": 4,
            "scored": 4,
            "by_status": {**tally.summary().by_status, Status.NO_GROUND_TRUTH: 1},
        }
    )
    out = io.StringIO()
    Console(file=out, width=80).print(summary_table(RECALL, summary, 1.0, spec))
    assert "smollm2-135m-instruct@9634263adf6bc976" in out.getvalue(), out.getvalue()
