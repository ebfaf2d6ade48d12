"""Edges of `compare`: a verdict pointing past its run's context, and a regression of a scorer
this installation does not know."""

from __future__ import annotations

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.report.comparison import compare_runs, flipped
from offline_recall.report.gate import Regression, regression
from offline_recall.report.stats import Interval

from ..conftest import RECALL

COMMON = {
    "reason": "",
    "model_fingerprint": "judge@1",
    "prompt_version": "v1",
    "judge_profile": "p",
    "library_version": "0.2.0",
}


def record(supported: bool, chunk_index: int | None, context: list[str]) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=1.0 if supported else 0.0,
        status=Status.OK,
        verdicts=(
            ClaimVerdict(
                claim="Paris is in France.",
                supported=supported,
                probability=0.9 if supported else 0.1,
                chunk_index=chunk_index,
            ),
        ),
        **COMMON,
    )
    return ItemRecord(line=1, id="q1", context=context, results={RECALL: result})


def test_a_chunk_index_past_the_context_points_at_no_chunk() -> None:
    """A record whose verdict names a chunk its context does not hold (a hand-edited or
    truncated file) shows the flip without a chunk, rather than another chunk or a crash."""
    context = ["Paris is in France.", "Rome is in Italy."]
    for index in (2, 5):
        a = record(True, index, context)
        b = record(False, None, ["Bananas are yellow."])
        (flip,) = flipped(a, b, RECALL)
        assert flip.lost and (flip.index_a, flip.chunk_a) == (None, None)
    (flip,) = flipped(record(True, 1, context), record(False, None, ["x"]), RECALL)
    assert (flip.index_a, flip.chunk_a) == (1, "Rome is in Italy.")


def test_a_regression_of_an_unknown_scorer_is_said_of_its_score() -> None:
    interval = Interval(low=-0.3, high=-0.1, level=0.95)
    line = Regression(
        scorer="some-plugin-scorer",
        run="new",
        baseline="old",
        diff=-0.2,
        interval=interval,
        margin=0.05,
    ).line()
    assert line.startswith("new: score is 0.2000 below old's (more than the margin 0.05)")
    known = Regression(
        scorer=RECALL, run="new", baseline="old", diff=-0.2, interval=interval, margin=0.05
    ).line()
    assert known.startswith("new: recall is 0.2000 below old's")


def test_one_paired_item_is_no_regression_however_much_worse() -> None:
    """One item gives a difference but no interval: nothing to call significant."""
    context = ["Paris is in France."]
    c = compare_runs([record(True, 0, context)], [record(False, None, context)], scorer=RECALL)
    assert c.diff == -1.0 and c.interval is None
    assert regression(c, 0.0) is None
