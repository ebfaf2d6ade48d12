"""A judge profile file that cannot be read is one error naming the file, why, and what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall.errors import ModelError
from offline_recall.judging.profile import load_profile

MODELS = Path(__file__).resolve().parents[1] / "models"
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


def test_a_malformed_profile_names_the_field_refused_and_why(tmp_path: Path) -> None:
    path = tmp_path / "m.judge.json"
    path.write_text('{"signals": ')
    assert "(Invalid JSON: " in refusal(path)
    shipped = json.loads((MODELS / "smollm2-135m-instruct.v4.judge.json").read_text())
    path.write_text(json.dumps({**shipped, "threshold": "high"}))
    said = refusal(path)
    why = "threshold: Input should be a valid number, unable to parse string as a number"
    assert said == f"judge profile {path} cannot be read ({why}){TO_DO}"
    assert "validation error for JudgeProfile" not in said
    path.write_text("{}")
    assert "(model_fingerprint: Field required, and 7 more)" in refusal(path)
