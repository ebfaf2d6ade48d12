"""Saying what the embedded judge is: the line `score` prints, and the report's header."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import load_manifest
from offline_recall.cli import main
from offline_recall.judging.disclosure import (
    NOTE,
    is_lexical_rule,
    lexical_digests,
    note_for_digests,
)
from offline_recall.judging.profile import ProfileOrigin, find_profile, threshold_profile

from ..conftest import RECALL, run_cli

ITEM = {
    "id": "q1",
    "input": "Where is the Eiffel Tower?",
    "groundTruth": "The Eiffel Tower is in Paris.",
    "context": ["The Eiffel Tower is a landmark in Paris, France."],
}


def test_the_commands_the_note_gives_are_commands_the_cli_takes() -> None:
    """Each command in backticks parses against the real CLI: its subcommand and options exist
    (`--help` at the end stops it before it opens the files it names)."""
    commands = re.findall(r"`offline-recall ([^`]+)`", NOTE)
    assert [c.split()[0] for c in commands] == ["models", "score"]
    for command in commands:
        result = CliRunner().invoke(main, [*shlex.split(command), "--help"])
        assert result.exit_code == 0, (command, result.output)


def test_only_a_shipped_rule_without_the_model_is_flagged() -> None:
    fingerprint = "smollm2-135m-instruct@9634263adf6bc976"
    manifest = load_manifest()
    assert manifest.scorers[RECALL].prompt_version is not None
    found = find_profile(RECALL, fingerprint, manifest.scorers[RECALL].prompt_version, 0.5)
    assert found.origin is ProfileOrigin.SHIPPED and not found.profile.uses_model
    assert is_lexical_rule(found.profile, found.origin)
    assert not is_lexical_rule(found.profile, ProfileOrigin.CALIBRATED)
    assert not is_lexical_rule(found.profile, ProfileOrigin.GIVEN)
    plain = threshold_profile(0.5, fingerprint=fingerprint)
    assert not is_lexical_rule(plain, ProfileOrigin.THRESHOLD)
    assert found.profile.digest in lexical_digests()
    assert note_for_digests([None, found.profile.digest]) == NOTE
    assert note_for_digests([None, plain.digest]) is None


def test_a_run_another_judge_decides_prints_no_note(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ITEM) + "\n")
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "lexical rule" not in result.output
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert result.exit_code == 0, result.output
    assert 'id="judge-note"' not in page.read_text()


@pytest.mark.model
def test_the_embedded_configuration_says_what_its_judge_is(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ITEM) + "\n")
    out = tmp_path / "results.jsonl"
    done = run_cli("score", str(data), "--backend", "transformers", "--out", str(out))
    assert "Verdicts come from a lexical rule" in " ".join(done.stderr.split())
    page = tmp_path / "report.html"
    run_cli("report", str(out), "--out", str(page))
    html = page.read_text()
    assert 'id="judge-note"' in html and "demos and CI smoke runs" in html
    quiet = run_cli(
        "score", str(data), "--backend", "transformers", "--out", str(out), "--no-judge-note"
    )
    assert "lexical rule" not in quiet.stderr
