"""The judge on the real embedded model: its shipped profile, and calibration on its signals."""

from __future__ import annotations

import pytest

from offline_recall import (
    ContextRecallOptions,
    Engine,
    Status,
    create_context_recall_scorer,
    load_manifest,
)
from offline_recall.judging.judge import signal_values
from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.profile import MODEL_SIGNAL, ProfileOrigin, find_profile
from offline_recall.runs.calibration.fit import fit_profile

from ..conftest import RECALL
from .test_calibration import CONTEXT, QUESTION, SUPPORTED, UNSUPPORTED

pytestmark = pytest.mark.model


def test_the_embedded_model_ships_a_cross_validated_profile(embedded: Engine) -> None:
    manifest = load_manifest()
    assert manifest.scorers[RECALL].prompt_version is not None
    found = find_profile(
        RECALL, embedded.identity.fingerprint, manifest.scorers[RECALL].prompt_version, 0.5
    )
    assert found.origin is ProfileOrigin.SHIPPED
    profile = found.profile
    checked = profile.cross_validated
    assert not profile.is_plain and checked is not None
    # The shipped rule was chosen because it beats word overlap on held-out folds.
    assert checked.auroc > checked.baseline_auroc
    assert "WiCE" in profile.trained_on and profile.rows > 1000


def test_calibration_on_the_embedded_models_signals_separates_the_rows(
    embedded: Engine,
) -> None:
    pairs = [
        LabelledPair(CONTEXT, claim, label, f"{label}-{i}")
        for label, claims in ((True, SUPPORTED), (False, UNSUPPORTED))
        for i, claim in enumerate(claims)
    ]
    values = signal_values(
        embedded, QUESTION, [(p.context, p.claim) for p in pairs], evidence_sentences=2
    )
    assert all(isinstance(v, dict) and 0.0 <= v[MODEL_SIGNAL] <= 1.0 for v in values)
    profile = fit_profile(
        pairs,
        values,  # type: ignore[arg-type]
        fingerprint=embedded.identity.fingerprint,
        prompt_version="v1",
        folds=3,
    )
    scorer = create_context_recall_scorer(
        embedded, ContextRecallOptions(context=[CONTEXT]), profile=profile, prompt_version="v1"
    )
    supported = [a.probability for a in scorer.assess([(CONTEXT, c) for c in SUPPORTED])]
    unsupported = [a.probability for a in scorer.assess([(CONTEXT, c) for c in UNSUPPORTED])]
    assert min(supported) >= scorer.threshold > max(unsupported)

    result = scorer.run({"groundTruth": "The Eiffel Tower was completed in 1889 in Paris."})
    assert result.status is Status.OK and result.score is not None
    assert all(v.claim for v in result.verdicts)
    # The profile asks the model: its own P(yes) is kept beside the decided probability.
    assert all(v.model_p_yes is not None for v in result.verdicts)
