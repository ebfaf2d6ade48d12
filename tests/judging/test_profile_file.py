"""A judge profile's file: what `calibrate` writes is what a run reads, laid out as shipped."""

from __future__ import annotations

import json
from pathlib import Path

from offline_recall.engines.manifests import bundled_manifest_dir
from offline_recall.judging.profile import (
    PROFILE_SUFFIX,
    JudgeProfile,
    load_profile,
    save_profile,
)


def test_a_shipped_profile_saved_again_is_the_same_file(tmp_path: Path) -> None:
    """Re-saving a bundled profile of this release changes no byte: the shipped files are
    `save_profile`'s layout (indented JSON, one trailing newline), so a refit shows as a diff
    of numbers only. (Files of earlier releases lack fields added since; a profile without a
    Korean rule has no `korean` field, one that asks the model about every pair no
    `stated_p_yes`, one without vetoes no `vetoes`.)"""
    shipped = [
        path
        for path in sorted(bundled_manifest_dir().glob(f"*{PROFILE_SUFFIX}"))
        if set(json.loads(path.read_text())) | {"korean", "stated_p_yes", "vetoes"}
        == set(JudgeProfile.model_fields)
    ]
    assert len(shipped) >= 2
    for path in shipped:
        again = save_profile(load_profile(path), tmp_path / "sub" / path.name)
        assert again.read_bytes() == path.read_bytes(), path.name
        assert load_profile(again) == load_profile(path)
