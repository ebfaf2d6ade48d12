"""A judge profile with a rule of its own for claims written in Hangul: fitted on them alone,
applied to them alone, stored and hashed so that a profile without one reads as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.errors import DatasetError
from offline_recall.judging.judge import DECIMALS, Judge, PairVerdict, signal_values
from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.profile import (
    MODEL_SIGNAL,
    JudgeProfile,
    load_profile,
    save_profile,
    threshold_profile,
)
from offline_recall.runs.calibration.fit import SIGNAL_SETS, fit_profile

ROOT = Path(__file__).resolve().parents[2]


def _rows() -> tuple[list[LabelledPair], list[dict[str, float]]]:
    """English claims that word overlap separates and the model does not; Korean claims the
    other way round (the model reads them, their words mislead)."""
    pairs, values = [], []
    for i in range(40):
        label = i % 2 == 0
        noise = (i % 5) / 50
        pairs.append(LabelledPair("context", f"claim {i}", label, f"en-{i}"))
        values.append({"overlap": (0.8 if label else 0.2) + noise, MODEL_SIGNAL: 0.5 + noise})
        pairs.append(LabelledPair("문맥", f"주장 {i}", label, f"ko-{i}"))
        values.append(
            {"overlap": (0.2 if label else 0.8) + noise, MODEL_SIGNAL: 0.9 if label else 0.1}
        )
    return pairs, values


def _fit(korean: tuple[str, ...] | None) -> JudgeProfile:
    pairs, values = _rows()
    return fit_profile(
        pairs,
        values,
        fingerprint="m@0",
        prompt_version="v4",
        signals=("overlap",),
        korean_signals=korean,
        evidence_sentences=3,
    )


def test_claims_in_hangul_get_their_own_rule_and_it_pays() -> None:
    one, split = _fit(None), _fit((MODEL_SIGNAL,))
    assert one.korean is None
    assert split.korean is not None and split.korean.signals == (MODEL_SIGNAL,)
    assert split.rows == 80 and split.korean.rows == 40
    assert one.cross_validated is not None and split.cross_validated is not None
    assert split.cross_validated.auroc > 0.95 > one.cross_validated.auroc
    assert split.rule_for("주장 1") is split.korean and split.rule_for("claim 1") is split
    assert split.uses_model and split.uses_lexical and not split.is_plain


def test_the_korean_rule_decides_only_korean_claims() -> None:
    profile = _fit((MODEL_SIGNAL,))
    english = profile.probability({"overlap": 0.8, MODEL_SIGNAL: 0.5})
    assert profile.rule_for("주장").probability({"overlap": 0.8, MODEL_SIGNAL: 0.1}) < 0.5
    assert english > 0.5


def test_a_korean_rule_is_stored_read_and_hashed_with_its_profile(tmp_path: Path) -> None:
    profile = _fit((MODEL_SIGNAL,))
    path = save_profile(profile, tmp_path / "p.judge.json")
    assert load_profile(path) == profile
    other = profile.model_copy(update={"korean": profile.korean.model_copy(update={"bias": 1.0})})  # type: ignore[union-attr]
    assert other.digest != profile.digest


def test_a_profile_without_a_korean_rule_is_stored_and_hashed_as_before(tmp_path: Path) -> None:
    shipped = ROOT / "models" / "smollm2-135m-instruct.v4.judge.json"
    profile = load_profile(shipped)
    assert profile.digest == "3840ed765effa942"
    written = save_profile(profile, tmp_path / "p.judge.json")
    assert "korean" not in json.loads(written.read_text())
    # Its card measures the rule and is not hashed: a profile without one (a user's, fitted
    # before cards) is stored and hashed as it always was.
    bare = profile.model_copy(update={"card": None})
    assert bare.digest == profile.digest
    text = json.loads(save_profile(bare, tmp_path / "bare.judge.json").read_text())
    assert "card" not in text and "korean" not in text


def test_a_korean_rule_of_another_model_or_evidence_is_refused() -> None:
    profile = _fit((MODEL_SIGNAL,))
    assert profile.korean is not None
    data = profile.model_dump(mode="json")
    data["korean"]["model_fingerprint"] = "other@1"
    with pytest.raises(ValueError, match="same scorer, model, prompts"):
        JudgeProfile.model_validate(data)
    data = profile.model_dump(mode="json")
    data["korean"]["evidence_sentences"] = None
    with pytest.raises(ValueError, match="same evidence_sentences"):
        JudgeProfile.model_validate(data)


def test_a_korean_rule_needs_claims_in_both_scripts() -> None:
    pairs, values = _rows()
    english = [(p, v) for p, v in zip(pairs, values, strict=True) if p.group.startswith("en")]
    with pytest.raises(DatasetError, match="claims in Korean and claims in other languages"):
        fit_profile(
            [p for p, _ in english],
            [v for _, v in english],
            fingerprint="m@0",
            prompt_version="v4",
            signals=("overlap",),
            korean_signals=(MODEL_SIGNAL,),
        )


def test_one_signal_set_alone_fits_as_it_did() -> None:
    pairs, values = _rows()
    plain = threshold_profile(0.5, fingerprint="m@0", prompt_version="v4")
    assert plain.is_plain and plain.rule_for("주장") is plain
    fitted = fit_profile(
        pairs, values, fingerprint="m@0", prompt_version="v4", signals=SIGNAL_SETS["model"]
    )
    assert fitted.korean is None and fitted.signals == (MODEL_SIGNAL,)


def test_the_judge_applies_the_rule_of_each_claims_script() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=["x"]))
    question = scorer.judge.question  # type: ignore[attr-defined]
    profile = _fit((MODEL_SIGNAL,))
    pairs = [
        ("The tower is in Paris.", "The tower is in Paris."),
        ("탑은 파리에 있다.", "탑은 파리에 있다."),
    ]
    values = signal_values(FakeEngine(), question, pairs, evidence_sentences=3)
    found = Judge(FakeEngine(), question, profile).assess(pairs)
    for (_, claim), value, assessment in zip(pairs, values, found, strict=True):
        assert isinstance(value, dict) and isinstance(assessment, PairVerdict)
        expected = round(profile.rule_for(claim).probability(value), DECIMALS)
        assert assessment.probability == expected
    korean = found[1]
    assert isinstance(korean, PairVerdict)
    assert korean.probability != round(profile.probability(values[1]), DECIMALS)  # type: ignore[arg-type]
