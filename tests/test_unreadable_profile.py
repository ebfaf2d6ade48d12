"""A judge profile file that cannot be read is one error naming the file, why, and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall.errors import ModelError
from offline_recall.judging.profile import load_profile

TO_DO = "; refit it with `offline-recall calibrate` or delete it"


def refusal(path: Path) -> str:
    with pytest.raises(ModelError) as caught:
        load_profile(path)
    return str(caught.value)


def test_a_profile_that_is_a_folder_says_so(tmp_path: Path) -> None:
    path = tmp_path / "m.judge.json"
    path.mkdir()
    assert refusal(path) == (
        f"judge profile {path} cannot be read ([Errno 21] Is a directory: '{path}'){TO_DO}"
    )


def test_a_profile_cut_short_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "m.judge.json"
    path.write_text('{"signals": ')
    said = refusal(path)
    assert said.startswith(f"judge profile {path} cannot be read (") and said.endswith(TO_DO)
    assert "\n" not in said
