"""The rule a run is decided by when nothing is calibrated: the profile shipped beside a bundled
model, found with its file, else the manifest's plain threshold, saying whose it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall import DEFAULT_MODEL, load_manifest
from offline_recall.judging.profile import (
    ProfileOrigin,
    find_profile,
    load_profile,
    threshold_profile,
)
from offline_recall.paths import CACHE_ENV

RECALL = "context-recall-scorer"
PRECISION = "context-precision-scorer"
NOT_TRAINED = "none: the model manifest's threshold"


@pytest.fixture(autouse=True)
def nothing_calibrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))


def test_without_a_profile_the_plain_threshold_names_its_scorer_model_and_prompts() -> None:
    found = find_profile(PRECISION, "tiny@0123456789abcdef", "v2", threshold=0.6)
    profile = found.profile
    assert (found.origin, found.path) == (ProfileOrigin.THRESHOLD, None)
    assert profile.is_plain
    assert (profile.scorer, profile.model_fingerprint, profile.prompt_version) == (
        PRECISION,
        "tiny@0123456789abcdef",
        "v2",
    )
    assert (profile.threshold, profile.trained_on) == (0.6, NOT_TRAINED)


def test_a_plain_threshold_made_by_hand_is_of_no_model_and_no_prompts() -> None:
    profile = threshold_profile(0.5)
    assert (profile.scorer, profile.model_fingerprint, profile.prompt_version) == (RECALL, "", "")
    assert profile.trained_on == NOT_TRAINED


def test_a_shipped_profile_is_found_with_the_file_it_was_read_from() -> None:
    manifest = load_manifest(DEFAULT_MODEL)
    version = manifest.scorers[RECALL].prompt_version or ""
    found = find_profile(RECALL, manifest.fingerprint, version, manifest.threshold)
    assert found.origin is ProfileOrigin.SHIPPED
    assert found.path is not None and load_profile(found.path) == found.profile
