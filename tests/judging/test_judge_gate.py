"""Every shipped judge passes the behaviour gate, and no fitted rule counts a signal of
support against support.

The gate: every unrelated-context case judged unsupported, and for a profile that reads (asks
the model) every other kind right at least 90% of the time; a lexical rule's shares are
reported on its card. A profile that asks the model is checked on the model's recorded P(yes)
for each case (`tests/fixtures/<model>.cases.jsonl`, written by `scripts/record_signals.py`); the
qwen tier re-derives a sample live.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall import ContextRecallOptions, create_context_recall_scorer
from offline_recall.engines.fake import FakeEngine
from offline_recall.errors import ModelError
from offline_recall.judging.behaviour import KINDS, READING_TARGET, UNRELATED, card_of, cases
from offline_recall.judging.judge import Judge, PairVerdict
from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.profile import (
    OPPOSING,
    RECALL,
    SUPPORTING,
    JudgeProfile,
    ProfileOrigin,
    _bundled_profiles,
    find_profile,
    load_profile,
)
from offline_recall.judging.signals import LEXICAL_SIGNALS, lexical_signals
from offline_recall.runs.calibration.fit import fit_profile

from ..conftest import RECORDER, case_key, recorded_p_yes

SHIPPED = _bundled_profiles()
CARDS_COMMAND = "python scripts/judge_cards.py"
"""Measures every shipped judge's card again and writes it in."""


def _recorded(profile: JudgeProfile, judge: str | None = None) -> dict[str, float]:
    """The judge's recorded P(yes) on every behaviour case (by default the model the profile
    names); a case without one fails, naming the command that records them."""
    model = judge or profile.model_fingerprint.partition("@")[0]
    recorded = recorded_p_yes(model)
    missing = [c for c in cases() if case_key(c.context, c.claim) not in recorded]
    assert not missing, (
        f"{len(missing)} behaviour cases have no recorded P(yes) of {model} (the first: "
        f"{missing[0].kind}, {missing[0].language}, {missing[0].claim!r}): record them with "
        f"{RECORDER.cases_command(model)}, then measure the cards with {CARDS_COMMAND}"
    )
    return recorded


def _decisions(profile: JudgeProfile, judge: str | None = None) -> list[bool]:
    """Each case decided as a run decides it: the judge on an engine that answers with the
    model's recorded P(yes)."""
    recorded = _recorded(profile, judge) if profile.uses_model else {}
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=["x"]))
    question = scorer.judge.question  # type: ignore[attr-defined]
    pairs = [(case.context, case.claim) for case in cases()]
    answers = {
        question.prompt(*pair).fields: recorded[case_key(*pair)] for pair in pairs if recorded
    }
    found = Judge(FakeEngine(p_yes=answers), question, profile).assess(pairs)
    assert all(isinstance(f, PairVerdict) for f in found)
    return [f.probability >= profile.threshold for f in found if isinstance(f, PairVerdict)]


def test_the_cases_cover_every_kind_in_english_and_korean() -> None:
    every = cases()
    for kind in KINDS:
        for language, least in (("en", 20), ("ko", 12)):
            count = sum(c.kind == kind and c.language == language for c in every)
            assert count >= least, (kind, language, count)
    assert len({(c.context, c.claim) for c in every}) == len(every)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_profile_keeps_each_signals_sign(path: Path) -> None:
    profile = load_profile(path)
    for rule in profile.rules:
        for signal, weight in zip(rule.signals, rule.weights, strict=True):
            assert not (signal in SUPPORTING and weight < 0), (signal, weight)
            assert not (signal in OPPOSING and weight > 0), (signal, weight)


CLAIM_PROFILES = [p for p in SHIPPED if load_profile(p).scorer == "context-recall-scorer"]


@pytest.mark.parametrize("path", CLAIM_PROFILES, ids=[p.name for p in CLAIM_PROFILES])
def test_every_shipped_judge_passes_the_gate_and_its_card_is_true(path: Path) -> None:
    profile = load_profile(path)
    card = card_of(_decisions(profile))
    assert profile.card == card, (
        f"{path.name}: its card says {profile.card}, the cases {card}: run {CARDS_COMMAND}"
    )
    assert card.failures(reads=profile.uses_model) == [], card.describe()
    unrelated = next(k for k in card.kinds if k.kind == UNRELATED)
    assert unrelated.right == unrelated.total > 0


def test_a_profile_weighing_support_against_support_is_refused_naming_the_signal(
    tmp_path: Path,
) -> None:
    fields = {"model_fingerprint": "m@1", "prompt_version": "v1", "threshold": 0.5, "bias": 0.0}
    bad = {**fields, "signals": ["model", "overlap"], "means": [0, 0], "scales": [1, 1]}
    path = tmp_path / "bad.judge.json"
    path.write_text(json.dumps({**bad, "weights": [1.0, -0.3]}), encoding="utf-8")
    with pytest.raises(ModelError, match=r"'overlap' has weight -0\.3: a signal of support"):
        load_profile(path)
    path.write_text(
        json.dumps({**fields, "signals": ["missing"], "means": [0], "scales": [1], "weights": [2]}),
        encoding="utf-8",
    )
    with pytest.raises(ModelError, match="'missing' has weight 2: a signal against support"):
        load_profile(path)


def test_a_fit_never_inverts_a_signal_whatever_the_labels_reward() -> None:
    # Labels that reward low overlap and many missing words, as a set whose negatives all
    # share words with their context may: the fit leaves those signals at zero instead.
    pairs, values = [], []
    for i in range(40):
        supported = i % 2 == 0
        context = "alpha beta gamma delta" if not supported else "zeta eta theta iota"
        claim = f"alpha beta claim {i}"
        pairs.append(LabelledPair(context, claim, supported, f"g{i}"))
        values.append({**lexical_signals(context, claim), "model": 0.9 if supported else 0.2})
    profile = fit_profile(
        pairs, values, fingerprint="m@1", prompt_version="v1", signals=("model", *LEXICAL_SIGNALS)
    )
    weights = dict(zip(profile.signals, profile.weights, strict=True))
    assert all(weights[s] >= 0 for s in SUPPORTING if s in weights)
    assert all(weights[s] <= 0 for s in OPPOSING if s in weights)
    assert weights["model"] > 0
    assert weights["overlap"] == 0.0  # the data rewarded a negative weight
    assert READING_TARGET == 0.9


@pytest.mark.parametrize(
    ("model", "backend", "column"),
    [
        ("qwen2.5-coder-1.5b-instruct", "vllm", 2),
        ("qwen2.5-coder-0.5b-instruct", "vllm", 4),
        ("qwen2.5-coder-1.5b-instruct", "onnx", None),
        ("qwen2.5-coder-0.5b-instruct", "onnx", None),
    ],
)
def test_a_qwen_judges_own_p_yes_rejects_every_unrelated_context_and_its_card_is_true(
    model: str, backend: str, column: int | None
) -> None:
    # The Qwen models ship no profile: their runs decide by P(yes) >= the manifest's threshold.
    # Each one's card on the recorded P(yes) is the one shipped for that rule (which a run
    # shows beside the judge's name) and the one the judging page quotes. On the onnx engine
    # the converted weights are a judge of their own, with a fingerprint, recording and card.
    from offline_recall.engines.manifests import load_manifest
    from offline_recall.engines.onnx_weights import onnx_fingerprint

    manifest = load_manifest(model)
    version = manifest.scorers[RECALL].prompt_version or ""
    found = find_profile(
        RECALL,
        onnx_fingerprint(manifest) if backend == "onnx" else manifest.fingerprint,
        version,
        manifest.threshold,
        manifest.stated_p_yes,
        manifest.vetoes,
    )
    assert found.origin is ProfileOrigin.THRESHOLD
    judge = RECORDER.judge_name(model, backend)
    card = card_of(_decisions(found.profile, judge))
    shipped = found.profile.card
    assert shipped == card, (
        f"{model}'s rule [{found.profile.digest}] carries "
        f"{'no card' if shipped is None else shipped.describe()} (models/{judge}.card.json), its "
        f"recorded P(yes) on the cases gives {card.describe()}: run {CARDS_COMMAND}"
    )
    assert card.failures(reads=False) == []
    if column is None:
        return
    page = (Path(__file__).parents[2] / "docs" / "judging.md").read_text("utf-8")
    for kind in card.kinds:
        row = f"| behaviour: {'restatement' if kind.kind == 'supported' else kind.kind} |"
        line = next(x for x in page.splitlines() if x.startswith(row))
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert cells[column] == f"{kind.right}/{kind.total}", (kind, line)
