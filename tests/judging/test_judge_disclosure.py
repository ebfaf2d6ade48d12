"""Saying what the embedded judge is: the line `score` prints, and the report's header."""

from __future__ import annotations

import json
import re
import shlex
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import load_manifest
from offline_recall.cli import main
from offline_recall.judging import disclosure
from offline_recall.judging.disclosure import (
    NOTE,
    READING_JUDGE,
    is_lexical_rule,
    lexical_digests,
    note,
    note_for_digests,
)
from offline_recall.judging.profile import ProfileOrigin, find_profile, threshold_profile
from offline_recall.service import listen

from ..conftest import RECALL, run_cli

README = Path(__file__).resolve().parents[2] / "README.md"

ITEM = {
    "id": "q1",
    "input": "Where is the Eiffel Tower?",
    "groundTruth": "The Eiffel Tower is in Paris.",
    "context": ["The Eiffel Tower is a landmark in Paris, France."],
}


@pytest.mark.parametrize("command", ["score DATA", "serve"])
def test_the_commands_the_note_gives_are_commands_the_cli_takes(command: str) -> None:
    """Each command in backticks parses against the real CLI: its subcommand and options exist
    (`--help` at the end stops it before it opens the files it names); the judge is installed
    after vLLM is set up, as the README says, and the last command is the one the user runs."""
    said = note(command)
    readme = README.read_text(encoding="utf-8")
    for steps in (said, readme):
        assert steps.index("make setup-vllm") < steps.index(f"models install {READING_JUDGE}")
    commands = re.findall(r"`offline-recall ([^`]+)`", said)
    assert [c.split()[0] for c in commands] == ["models", command.split()[0]]
    assert commands[-1] == f"{command} --model {READING_JUDGE}"
    for found in commands:
        result = CliRunner().invoke(main, [*shlex.split(found), "--help"])
        assert result.exit_code == 0, (found, result.output)


@pytest.mark.parametrize(("command", "usage"), [("serve", "serve"), ("score", "score DATA")])
def test_the_note_names_the_command_the_user_runs(
    command: str, usage: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On the fake engine with the lexical rule deciding (as the embedded model's profile
    does), `serve` and `score` each print a note naming themselves, and the set-up step."""
    monkeypatch.setattr(disclosure, "is_lexical_rule", lambda profile, origin: True)
    monkeypatch.setattr(listen, "serve_socket", lambda app, sock: None)
    monkeypatch.setattr(listen, "bind", lambda host, port: socket.create_server(("127.0.0.1", 0)))
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ITEM) + "\n")
    given = [str(data), "--out", str(tmp_path / "out.jsonl")] if command == "score" else []
    done = CliRunner().invoke(main, [command, *given, "--backend", "fake"])
    assert done.exit_code == 0, done.output
    said = " ".join(done.stderr.split())
    assert f"`offline-recall {usage} --model {READING_JUDGE}`" in said
    assert "`make setup-vllm`" in said
    other = "score DATA" if command == "serve" else "serve"
    assert f"offline-recall {other} --model" not in said


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
