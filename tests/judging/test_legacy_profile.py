"""A context recall profile calibrated by an earlier release, stored under the name it used
then (no scorer in it), still decides the runs it was fitted for."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall.judging.profile import (
    ProfileOrigin,
    find_profile,
    save_profile,
    threshold_profile,
)
from offline_recall.paths import CACHE_ENV

RECALL = "context-recall-scorer"
PRECISION = "context-precision-scorer"
FINGERPRINT = "tiny@0123456789abcdef"


@pytest.fixture
def earlier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A profile where earlier releases stored it: profiles/<fingerprint>-<prompt version>."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    profile = threshold_profile(0.7, fingerprint=FINGERPRINT, prompt_version="v2")
    return save_profile(profile, tmp_path / "profiles" / "tiny-0123456789abcdef-v2.judge.json")


def test_an_earlier_releases_recall_profile_is_found(earlier: Path) -> None:
    found = find_profile(RECALL, FINGERPRINT, "v2", threshold=0.5)
    assert (found.origin, found.path, found.profile.threshold) == (
        ProfileOrigin.CALIBRATED,
        earlier,
        0.7,
    )


def test_it_decides_neither_another_prompt_version_nor_another_scorer(earlier: Path) -> None:
    for scorer, version in [(RECALL, "v3"), (PRECISION, "v2")]:
        found = find_profile(scorer, FINGERPRINT, version, threshold=0.5)
        assert (found.origin, found.profile.threshold) == (ProfileOrigin.THRESHOLD, 0.5)
