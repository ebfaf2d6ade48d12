"""Judge profiles: lexical signals, fitting with cross-validation, the calibrate command."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.cli import main
from offline_recall.judging.judge import Question, signal_values
from offline_recall.judging.labelled import LabelledPair, read_labelled
from offline_recall.judging.negatives import group_of
from offline_recall.judging.profile import (
    JudgeProfile,
    ProfileOrigin,
    find_profile,
    load_profile,
    threshold_profile,
    user_profile_path,
)
from offline_recall.judging.signals import LEXICAL_SIGNALS, evidence, lexical_signals, word_overlap
from offline_recall.runs.calibration.fit import fit_profile
from offline_recall.scorer.claims.prompts import load_prompts

from ..conftest import RECALL

PROMPTS = load_prompts("v1")
QUESTION = Question(PROMPTS.judge_prompt, PROMPTS.judge.yes, PROMPTS.judge.no)

CONTEXT = (
    "The Eiffel Tower was completed in 1889 for the World's Fair. "
    "It stands 330 metres tall. Gustave Eiffel's company designed and built it. "
    "Paris is the capital of France."
)
SUPPORTED = [
    "The Eiffel Tower was completed in 1889.",
    "The tower stands 330 metres tall.",
    "Gustave Eiffel's company built the tower.",
    "Paris is the capital of France.",
    "The tower was built for the World's Fair.",
    "Eiffel's company designed the tower.",
]
UNSUPPORTED = [
    "The Eiffel Tower was completed in 1925.",
    "The tower is painted bright green every winter.",
    "Napoleon ordered the construction of a canal.",
    "Berlin hosted the Olympic Games in 1936.",
    "The bridge collapsed during a storm in Lisbon.",
    "Marie Curie discovered polonium and radium.",
]


def labelled_rows() -> list[dict[str, object]]:
    return [
        {"id": f"{label}-{i}", "claim": claim, "context": CONTEXT, "label": label}
        for label, claims in ((1, SUPPORTED), (0, UNSUPPORTED))
        for i, claim in enumerate(claims)
    ]


def test_word_overlap_is_the_share_of_content_words_found() -> None:
    assert word_overlap(CONTEXT, "The Eiffel Tower was completed in 1889.") == 1.0
    assert word_overlap(CONTEXT, "The tower is green.") == 0.5  # tower yes, green no
    assert word_overlap(CONTEXT, "the of and") == 0.0  # no content words


def test_lexical_signals_notice_a_changed_number() -> None:
    right = lexical_signals(CONTEXT, "The Eiffel Tower was completed in 1889.")
    wrong = lexical_signals(CONTEXT, "The Eiffel Tower was completed in 1925.")
    assert set(right) == set(LEXICAL_SIGNALS)
    assert right["numbers"] == 1.0 and wrong["numbers"] == 0.0
    assert wrong["rarest_missing"] > right["rarest_missing"] == 0.0
    assert right["weighted_overlap"] > wrong["weighted_overlap"]


def test_evidence_keeps_the_best_sentences_in_their_order() -> None:
    chosen = evidence(CONTEXT, "Gustave Eiffel's company designed it in Paris.", sentences=2)
    assert chosen.splitlines() == [
        "Gustave Eiffel's company designed and built it.",
        "Paris is the capital of France.",
    ]


def test_evidence_of_a_short_context_is_the_context_as_written() -> None:
    short = "The tower opened in 1889.  It is in Paris."
    assert evidence(short, "The tower is in Paris.", sentences=3) == short
    assert evidence(short, "The tower is in Paris.", sentences=1) == "It is in Paris."


def test_the_plain_profile_is_the_model_probability_itself() -> None:
    plain = threshold_profile(0.6, fingerprint="m@1", prompt_version="v1")
    assert plain.is_plain and plain.probability({"model": 0.37}) == 0.37


def test_a_profile_with_an_unknown_signal_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown signals"):
        JudgeProfile(
            model_fingerprint="m",
            prompt_version="v1",
            signals=("vibes",),
            means=(0.0,),
            scales=(1.0,),
            weights=(1.0,),
            bias=0.0,
            threshold=0.5,
        )


def test_fitted_profile_separates_the_labelled_claims_and_beats_nothing_silently() -> None:
    pairs = [
        LabelledPair(
            context=CONTEXT, claim=str(r["claim"]), label=r["label"] == 1, group=str(r["id"])
        )
        for r in labelled_rows()
    ]
    values = signal_values(
        FakeEngine(), QUESTION, [(p.context, p.claim) for p in pairs], evidence_sentences=3
    )
    profile = fit_profile(pairs, values, fingerprint="fake@0", prompt_version="fake", folds=3)
    probabilities = [profile.probability(v) for v in values]
    supported = [p for p, pair in zip(probabilities, pairs, strict=True) if pair.label]
    unsupported = [p for p, pair in zip(probabilities, pairs, strict=True) if not pair.label]
    assert min(supported) >= profile.threshold > max(unsupported)
    checked = profile.cross_validated
    assert checked is not None and checked.folds == 3
    assert 0.5 < checked.auroc <= 1.0 and 0.0 <= checked.balanced_accuracy <= 1.0
    assert profile.evidence_sentences is None and profile.rows == len(pairs)


def test_one_label_only_is_a_clear_error() -> None:
    pairs = [LabelledPair(CONTEXT, c, True, c) for c in SUPPORTED]
    values = signal_values(
        FakeEngine(), QUESTION, [(p.context, p.claim) for p in pairs], evidence_sentences=None
    )
    with pytest.raises(Exception, match="both supported and unsupported"):
        fit_profile(pairs, values, fingerprint="f", prompt_version="v")


def test_labelled_reader_keeps_good_rows_and_reports_bad_ones(tmp_path: Path) -> None:
    data = tmp_path / "labelled.jsonl"
    rows = [
        {"claim": "A.", "context": ["one", "two"], "label": "supported", "group": "g1"},
        {"claim": "B.", "context": "three", "label": False},
        {"claim": "C.", "context": "four", "label": "maybe"},
        {"claim": "", "context": "five", "label": 1},
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    pairs, errors = read_labelled(data)
    assert [(p.claim, p.context, p.label, p.group) for p in pairs] == [
        ("A.", "one", True, "g1"),
        ("A.", "two", True, "g1"),
        ("B.", "three", False, "row 2"),
    ]
    assert [e.line for e in errors] == [3, 4, 5]
    assert "maybe" in errors[0].message and "claim" in errors[1].message


def test_calibrate_command_stores_the_profile_that_later_runs_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    data = tmp_path / "labelled.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in labelled_rows()) + "\n")
    # Word overlap separates these rows at its best threshold: --force installs the profile.
    command = ["calibrate", "--data", str(data), "--backend", "fake", "--folds", "3", "--force"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    assert "AUROC" in result.output and "word overlap" in result.output

    fake = FakeEngine(prompt_version="v5")  # the bundled manifest's prompts, as --backend fake
    stored = user_profile_path(RECALL, fake.identity.fingerprint, "v5")
    profile = load_profile(stored)
    found = find_profile(RECALL, fake.identity.fingerprint, "v5", 0.5)
    assert found.profile == profile and found.origin is ProfileOrigin.CALIBRATED
    scorer = create_context_recall_scorer(fake, ContextRecallOptions(context=[CONTEXT]))
    assert scorer.threshold == profile.threshold
    supported = [a.probability for a in scorer.assess([(CONTEXT, c) for c in SUPPORTED])]
    unsupported = [a.probability for a in scorer.assess([(CONTEXT, c) for c in UNSUPPORTED])]
    assert min(supported) >= scorer.threshold > max(unsupported)
    # The model was asked about the evidence sentences, not the whole context.
    assert all(context != CONTEXT for context, _ in fake.answer_calls[0])


def test_calibrate_rejects_a_file_without_usable_rows(tmp_path: Path) -> None:
    data = tmp_path / "labelled.jsonl"
    data.write_text(json.dumps({"claim": "x", "context": "y", "label": "perhaps"}) + "\n")
    result = CliRunner().invoke(
        main, ["calibrate", "--data", str(data), "--backend", "fake", "--out", str(tmp_path / "p")]
    )
    assert result.exit_code == 1
    assert "no usable labelled rows" in result.output and "perhaps" in result.output


TINY = [
    {"claim": "The Eiffel Tower is in Paris.", "context": "The tower is in Paris.", "label": 1},
    {"claim": "It opened in 1889.", "context": "It opened in 1889.", "label": 1},
    {"claim": "It is green.", "context": "The tower is in Paris.", "label": 0},
    {"claim": "Rome is in Spain.", "context": "Rome is in Italy.", "label": 0},
]


def test_a_profile_that_loses_to_word_overlap_is_not_installed_without_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four claims, where word overlap separates them perfectly: the fitted rule does worse,
    so it is not installed, and the warning states how little four claims say."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in TINY))
    command = ["calibrate", "--data", str(data), "--backend", "fake", "--folds", "2"]
    refused = CliRunner().invoke(main, command)
    assert refused.exit_code == 1
    last = refused.output.strip().splitlines()[-1]
    assert "not installed: its cross-validated AUROC" in last and "word overlap" in last
    assert "under the manifest threshold profile in use, whose AUROC on these rows" in last
    assert "--force" in last
    assert "warning: only 4 labelled claims" in refused.output
    assert not list((tmp_path / "cache").glob("profiles/*"))

    aside = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "aside.json")])
    assert aside.exit_code == 0 and (tmp_path / "aside.json").is_file()
    forced = CliRunner().invoke(main, [*command, "--force"])
    assert forced.exit_code == 0, forced.output
    assert len(list((tmp_path / "cache").glob("profiles/*"))) == 1


def test_a_profile_whose_balanced_accuracy_loses_to_word_overlap_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A better AUROC than word overlap's, but a worse balanced accuracy at its threshold: the
    verdicts a run would give are worse than overlap's, so it is refused in one line."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    cli = importlib.import_module("offline_recall.cli.calibrate")
    real = cli.fit

    def fitted(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        checked = found.profile.cross_validated.model_copy(
            update={
                "auroc": 0.9,
                "baseline_auroc": 0.7,
                "balanced_accuracy": 0.54,
                "baseline_balanced_accuracy": 0.649,
            }
        )
        profile = found.profile.model_copy(update={"cross_validated": checked})
        return found._replace(profile=profile, replaced_auroc=None)

    monkeypatch.setattr(cli, "fit", fitted)
    data = tmp_path / "labelled.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in labelled_rows()) + "\n")
    command = ["calibrate", "--data", str(data), "--backend", "fake", "--folds", "3"]
    refused = CliRunner().invoke(main, command)
    assert refused.exit_code == 1
    assert refused.output.strip().splitlines()[-1] == (
        "Error: not installed: its cross-validated balanced accuracy 0.540 is under word "
        "overlap's 0.649. Pass --force to install it anyway, or --out FILE to keep it aside"
    )
    assert not list((tmp_path / "cache").glob("profiles/*"))
    forced = CliRunner().invoke(main, [*command, "--force"])
    assert forced.exit_code == 0, forced.output
    assert "installed" in forced.output


def test_made_negatives_shape_the_weights_but_not_the_rate_of_support() -> None:
    """Claims made unsupported (here: each claim against unrelated chunks) weigh in the fit,
    but the intercept is fitted again on the labelled claims alone, so the profile's mean
    probability over them stays their own share supported."""
    labelled = [
        LabelledPair(
            context=CONTEXT, claim=str(r["claim"]), label=r["label"] == 1, group=str(r["id"])
        )
        for r in labelled_rows()
    ]
    unrelated = [
        LabelledPair(
            context=chunk, claim=p.claim, label=False, group=group_of("unrelated", p.group)
        )
        for p in labelled
        for chunk in ("Bananas are rich in potassium.", "The river froze in January.")
    ]
    pairs = [*labelled, *unrelated]
    values = signal_values(
        FakeEngine(), QUESTION, [(p.context, p.claim) for p in pairs], evidence_sentences=3
    )
    signals = ("overlap", "weighted_overlap", "missing")
    profile = fit_profile(
        pairs, values, fingerprint="fake@0", prompt_version="fake", folds=3, signals=signals
    )
    probabilities = [profile.probability(v) for v in values[: len(labelled)]]
    share = sum(p.label for p in labelled) / len(labelled)
    assert sum(probabilities) / len(probabilities) == pytest.approx(share, abs=1e-3)
    assert all(profile.probability(v) < profile.threshold for v in values[len(labelled) :])
