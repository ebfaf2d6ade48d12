"""Context recall's expected recall from its verdicts (no engine)."""

from __future__ import annotations

from offline_recall import ClaimVerdict
from offline_recall.metrics.recall.score import expected_recall
from offline_recall.scorer.claims.score import claim_score
from offline_recall.scorer.inputs import ground_truth_text


def verdicts(*probabilities: float) -> list[ClaimVerdict]:
    return [
        ClaimVerdict(claim=f"c{i}.", supported=p >= 0.5, probability=p)
        for i, p in enumerate(probabilities)
    ]


def test_expected_recall_is_the_mean_probability_times_scale_at_six_decimals() -> None:
    assert expected_recall(verdicts(0.9, 0.4), 10) == 6.5
    assert expected_recall(verdicts(1 / 3), 1) == 0.333333
    assert expected_recall(verdicts(), 1) is None


def test_no_verdict_scores_zero() -> None:
    assert claim_score([], 10) == 0.0
    assert claim_score(verdicts(0.9, 0.1), 10) == 5.0


def test_a_ground_truth_that_is_not_text_is_judged_as_its_json() -> None:
    assert ground_truth_text(False) is None and ground_truth_text(None) is None
    assert ground_truth_text(True) == "true"
    assert ground_truth_text({"city": "Zürich"}) == '{"city": "Zürich"}'
