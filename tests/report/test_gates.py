"""The CI gates of `score`: a mean under its --fail-under, or more failed rows than
--max-failed, fail the run with one line saying which; a mean at the gate passes."""

from __future__ import annotations

from offline_recall.cli.summary import gate_failure
from offline_recall.runs.summary import Summary
from offline_recall.scorer.registry import RECALL

PRECISION = "context-precision-scorer"


def summary(mean: float | None, failed: int = 0) -> Summary:
    return Summary(
        mean=mean,
        mean_with_ground_truth=mean,
        items=4,
        scored=4 - failed,
        failed=failed,
        by_status={},
        judged=0,
        positive=0,
    )


def test_a_mean_at_its_gate_passes_and_under_it_fails_naming_the_scorer() -> None:
    assert gate_failure({RECALL: summary(0.5)}, {RECALL: 0.5}, None) is None
    assert gate_failure({RECALL: summary(0.4999)}, {RECALL: 0.5}, None) == (
        f"mean recall 0.4999 is under --fail-under 0.5 ({RECALL})"
    )


def test_a_gated_scorer_with_nothing_scored_fails_in_words() -> None:
    assert gate_failure({RECALL: summary(None)}, {RECALL: 0.1}, None) == (
        f"mean recall none: no item scored is under --fail-under 0.1 ({RECALL})"
    )
    assert gate_failure({}, {PRECISION: 0.1}, None) == (
        f"mean precision none: no item scored is under --fail-under 0.1 ({PRECISION})"
    )


def test_failed_rows_over_the_allowed_count_fail_with_their_count() -> None:
    summaries = {RECALL: summary(0.9, failed=1), PRECISION: summary(0.9, failed=2)}
    assert gate_failure(summaries, {}, 2) is None
    assert gate_failure(summaries, {}, 1) == (
        "2 rows failed, more than --max-failed 1; their errors are in the results (status error)"
    )
    assert gate_failure({RECALL: summary(0.9, failed=1)}, {}, 0) == (
        "1 row failed, more than --max-failed 0; their errors are in the results (status error)"
    )
    assert gate_failure({}, {}, 0) is None
    assert gate_failure(summaries, {}, None) is None
