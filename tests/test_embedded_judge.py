"""The judge on the real embedded model: its shipped profile, and calibration on its signals."""

from __future__ import annotations

import pytest

from offline_recall import ContextRecallOptions, Status, create_context_recall_scorer
from offline_recall.backends import Backend
from offline_recall.calibrate import fit_profile
from offline_recall.judge import signal_values
from offline_recall.labelled import LabelledPair
from offline_recall.profile import MODEL_SIGNAL, find_profile

from .test_calibration import CONTEXT, SUPPORTED, UNSUPPORTED

pytestmark = pytest.mark.model


def test_the_embedded_model_ships_a_cross_validated_profile(embedded: Backend) -> None:
    info = embedded.info
    profile = find_profile(info.fingerprint, info.prompt_version, info.threshold)
    checked = profile.cross_validated
    assert not profile.is_plain and checked is not None
    # The shipped rule was chosen because it beats word overlap on held-out folds.
    assert checked.auroc > checked.baseline_auroc
    assert "WiCE" in profile.trained_on and profile.rows > 1000


def test_calibration_on_the_embedded_models_signals_separates_the_rows(
    embedded: Backend,
) -> None:
    pairs = [
        LabelledPair(CONTEXT, claim, label, f"{label}-{i}")
        for label, claims in ((True, SUPPORTED), (False, UNSUPPORTED))
        for i, claim in enumerate(claims)
    ]
    values = signal_values(embedded, [(p.context, p.claim) for p in pairs], evidence_sentences=2)
    assert all(0.0 <= v[MODEL_SIGNAL] <= 1.0 for v in values)
    profile = fit_profile(
        pairs,
        values,
        fingerprint=embedded.info.fingerprint,
        prompt_version=embedded.info.prompt_version,
        folds=3,
    )
    scorer = create_context_recall_scorer(
        embedded, ContextRecallOptions(context=[CONTEXT]), profile=profile
    )
    supported = scorer.support([(CONTEXT, c) for c in SUPPORTED])
    unsupported = scorer.support([(CONTEXT, c) for c in UNSUPPORTED])
    assert min(supported) >= scorer.threshold > max(unsupported)

    result = scorer.run({"groundTruth": "The Eiffel Tower was completed in 1889 in Paris."})
    assert result.status is Status.OK and result.score is not None
    assert all(v.claim for v in result.verdicts)
