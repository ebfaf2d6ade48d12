"""A judge profile file that cannot be read is one error naming the file, why, and what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import FakeEngine
from offline_recall.cli import main
from offline_recall.errors import ModelError
from offline_recall.judging.profile import (
    ProfileOrigin,
    UnreadableProfile,
    find_profile,
    load_profile,
    save_profile,
    threshold_profile,
    user_profile_path,
)

from ..conftest import EXAMPLE, RECALL

MODELS = Path(__file__).resolve().parents[2] / "models"
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
    shipped = json.loads((MODELS / "smollm2-135m-instruct.v5.judge.json").read_text())
    path.write_text(json.dumps({**shipped, "threshold": "high"}))
    said = refusal(path)
    why = "threshold: Input should be a valid number"
    assert said == f"judge profile {path} cannot be read ({why}){TO_DO}"
    assert "validation error for JudgeProfile" not in said
    path.write_text("{}")
    assert "(model_fingerprint: Field required, and 7 more)" in refusal(path)


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("weights", [float("nan")], "weights.0: Input should be a finite number"),
        ("scales", [float("inf")], "scales.0: Input should be a finite number"),
        ("scales", [0.0], "scales.0: Input should be greater than or equal to 0.000000001"),
        ("bias", float("-inf"), "bias: Input should be a finite number"),
        ("means", [1e300], "means.0: Input should be less than or equal to 1000000"),
        ("threshold", float("nan"), "threshold: Input should be a finite number"),
        ("rows", -1, "rows: Input should be greater than or equal to 0"),
    ],
)
def test_a_profile_number_that_is_not_finite_or_in_range_is_refused_naming_its_field(
    tmp_path: Path, field: str, value: object, why: str
) -> None:
    path = tmp_path / "m.judge.json"
    plain = threshold_profile(0.5).model_dump(mode="json")
    path.write_text(json.dumps({**plain, field: value}))  # NaN and Infinity as Python writes them
    assert refusal(path) == f"judge profile {path} cannot be read ({why}){TO_DO}"


def test_a_cross_validation_measure_out_of_range_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.judge.json"
    shipped = json.loads((MODELS / "smollm2-135m-instruct.v5.judge.json").read_text())
    measured = {**shipped["cross_validated"], "fold_aurocs": [0.5, float("nan")]}
    path.write_text(json.dumps({**shipped, "cross_validated": measured}))
    assert "(cross_validated.fold_aurocs.1: Input should be a finite number)" in refusal(path)


def test_a_run_under_a_stored_profile_with_a_nan_weight_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A NaN weight would make every verdict's logit the largest one: every claim supported."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    fingerprint = FakeEngine(prompt_version="v5").identity.fingerprint
    stored = save_profile(
        threshold_profile(0.5, fingerprint=fingerprint, prompt_version="v5"),
        user_profile_path(RECALL, fingerprint, "v5"),
    )
    stored.write_text(stored.read_text().replace('"weights": [\n    1.0\n  ]', '"weights": [NaN]'))
    data = tmp_path / "data.jsonl"
    data.write_text(EXAMPLE.read_text())
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 1
    why = "weights.0: Input should be a finite number"
    assert f"Error: judge profile {stored} cannot be read ({why}){TO_DO}" in result.output
    assert not out.exists()


def test_a_profile_weight_of_true_is_not_a_weight_of_one(tmp_path: Path) -> None:
    path = tmp_path / "m.judge.json"
    plain = threshold_profile(0.5).model_dump(mode="json")
    for field, value in [("weights", [True]), ("bias", False), ("threshold", True)]:
        path.write_text(json.dumps({**plain, field: value}))
        where = f"{field}.0" if isinstance(value, list) else field
        assert f"({where}: Input should be a valid number)" in refusal(path)
    path.write_text(json.dumps({**plain, "rows": True}))
    assert "(rows: Input should be a valid integer)" in refusal(path)


def test_a_calibrated_profile_fitted_for_another_model_does_not_decide_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile copied where a run looks for its own would decide its verdicts with another
    model's rule (and be recorded as the run's user-calibrated one)."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    fingerprint = FakeEngine(prompt_version="v5").identity.fingerprint
    other = "qwen2.5-coder-1.5b-instruct@0123456789abcdef"
    stored = save_profile(
        threshold_profile(0.01, fingerprint=other, prompt_version="v5"),
        user_profile_path(RECALL, fingerprint, "v5"),
    )
    data = tmp_path / "data.jsonl"
    data.write_text(EXAMPLE.read_text())
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 1
    said = (
        f"Error: judge profile {stored} was fitted for the model {other!r}, not this run's "
        f"{fingerprint!r}; a profile decides only the runs it was fitted for: delete it or "
        "refit it with `offline-recall calibrate`"
    )
    assert said in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("prompt_version", "v4", "prompt version"),
        ("scorer", "context-precision-scorer", "scorer"),
        ("model_fingerprint", "", "model"),
    ],
)
def test_a_calibrated_profile_of_another_prompt_version_or_scorer_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, value: str, what: str
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path))
    fingerprint = "tiny@0123456789abcdef"
    ours = threshold_profile(0.7, fingerprint=fingerprint, prompt_version="v5")
    stored = save_profile(
        ours.model_copy(update={field: value}), user_profile_path(RECALL, fingerprint, "v5")
    )
    with pytest.raises(UnreadableProfile) as caught:
        find_profile(RECALL, fingerprint, "v5", threshold=0.5)
    assert caught.value.path == stored
    shown = repr(value) if value else "'(none)'"
    assert str(caught.value).startswith(f"judge profile {stored} was fitted for the {what} {shown}")
    save_profile(ours, stored)
    assert find_profile(RECALL, fingerprint, "v5", threshold=0.5).profile == ours


def test_every_shipped_profile_is_found_for_its_own_model_and_prompts() -> None:
    for path in sorted(MODELS.glob("*.judge.json")):
        shipped = load_profile(path)
        found = find_profile(
            shipped.scorer, shipped.model_fingerprint, shipped.prompt_version, threshold=0.5
        )
        assert (found.origin, found.path) == (ProfileOrigin.SHIPPED, path)
