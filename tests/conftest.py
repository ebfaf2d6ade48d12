"""Shared fixtures. The real embedded model is converted and loaded once per test session."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from offline_recall import Engine, FakeEngine, create_engine

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

EXAMPLE = Path(__file__).resolve().parents[1] / "offline_recall" / "examples" / "example.jsonl"


def load_script(name: str) -> ModuleType:
    """The module of `scripts/<name>.py`."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


RECORDER = load_script("record_signals")
"""scripts/record_signals.py: records a model's P(yes) on the behaviour cases."""
case_key = RECORDER.key
"""A behaviour case's key in a recorded P(yes) file, as scripts/record_signals.py makes it."""


def recorded_p_yes(model: str) -> dict[str, float]:
    """A model's P(yes) on the behaviour cases by case key, as `scripts/record_signals.py
    --cases-out` recorded it (`tests/fixtures/<model>.cases.jsonl`)."""
    path = RECORDER.cases_file(model)
    assert path.is_file(), f"{path} holds no recorded P(yes): run {RECORDER.cases_command(model)}"
    found: dict[str, float] = RECORDER.read_cases(path)
    return found


BUILDER = load_script("build_tiny_models")
"""scripts/build_tiny_models.py: tiny random-initialised models of each supported family."""


@pytest.fixture
def fake() -> FakeEngine:
    return FakeEngine()


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh cache folder for the whole session (converted weights, claim cache), so the
    first load converts the weights and no test reads or writes the user's cache."""
    cache = tmp_path_factory.mktemp("offline-recall-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OFFLINE_RECALL_CACHE", str(cache))
        yield cache


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every tiny model (seconds to build), by family name, built once per session."""
    built: dict[str, Path] = BUILDER.build(tmp_path_factory.mktemp("tiny-models"))
    return built


@pytest.fixture(scope="session")
def embedded(model_cache: Path) -> Engine:
    """The embedded default model on the transformers engine."""
    return create_engine("transformers")


RECALL = "context-recall-scorer"


def recall(line: dict[str, Any]) -> dict[str, Any]:
    """The context recall result of one line of a JSON Lines result file."""
    found: dict[str, Any] = line["results"][RECALL]
    return found


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`offline-recall ARGS` in a process of its own, as a user runs it; it must succeed."""
    cli = Path(sys.executable).with_name("offline-recall")
    done = subprocess.run(
        [str(cli), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done
