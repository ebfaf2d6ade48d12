"""Shared fixtures. The real embedded model is converted and loaded once per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from offline_recall import FakeBackend, load_manifest
from offline_recall.backends import Backend, create_backend

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

EXAMPLE = Path(__file__).resolve().parents[1] / "offline_recall" / "examples" / "example.jsonl"


@pytest.fixture
def fake() -> FakeBackend:
    return FakeBackend()


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh cache folder for the whole session (converted weights, claim cache), so the
    first load converts the weights and no test reads or writes the user's cache."""
    cache = tmp_path_factory.mktemp("offline-recall-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OFFLINE_RECALL_CACHE", str(cache))
        yield cache


@pytest.fixture(scope="session")
def embedded(model_cache: Path) -> Backend:
    """The embedded default model on the transformers backend."""
    return create_backend("transformers", load_manifest())
