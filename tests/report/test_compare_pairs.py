"""How `compare` pairs two runs' items and counts them: ids, unscored items, ties, order."""

from __future__ import annotations

import pytest

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.errors import DatasetError
from offline_recall.report.comparison import PairBy, compare_runs
from offline_recall.report.gate import regression
from offline_recall.report.stats import Interval

from ..conftest import RECALL

COMMON = {
    "reason": "",
    "model_fingerprint": "judge@1",
    "prompt_version": "v1",
    "judge_profile": "p",
    "library_version": "0.2.0",
}


def record(line: int, id: str | None, score: float | None, claims: int = 0) -> ItemRecord:
    """A context recall record; `claims` verdicts, supported when the score is above 0.5."""
    verdicts = tuple(
        ClaimVerdict(claim=f"claim {i}.", supported=(score or 0) > 0.5, probability=0.5)
        for i in range(claims)
    )
    result = RecallResult(
        scorer=RECALL,
        score=score,
        status=Status.OK if score is not None else Status.ERROR,
        error=None if score is not None else "broken",
        verdicts=verdicts,
        **COMMON,
    )
    return ItemRecord(line=line, id=id, context=["c"], results={RECALL: result})


def test_pairs_by_id_are_keyed_by_id_and_named_by_either_runs_id() -> None:
    c = compare_runs([record(1, "q1", 0.5)], [record(7, "q1", 1.0)], scorer=RECALL)
    assert c.paired_by is PairBy.ID
    (pair,) = c.pairs
    assert (pair.key, pair.id, pair.line_a, pair.line_b) == ("id q1", "q1", 1, 7)
    by_line = compare_runs([record(1, None, 0.5)], [record(1, "b1", 1.0)], scorer=RECALL)
    assert by_line.paired_by is PairBy.LINE
    assert (by_line.pairs[0].key, by_line.pairs[0].id) == ("line 1", "b1")
    a_named = compare_runs([record(1, "a1", 0.5)], [record(1, None, 1.0)], scorer=RECALL)
    assert a_named.pairs[0].id == "a1"


def test_ids_that_cannot_pair_say_which_run_and_why() -> None:
    a = [record(1, "q1", 0.5), record(2, "q1", 0.5)]
    b = [record(1, "q1", 0.5), record(2, None, 0.5)]
    with pytest.raises(DatasetError) as caught:
        compare_runs(a, b, scorer=RECALL, pair_by=PairBy.ID)
    assert str(caught.value) == (
        "cannot pair by id (run A: id 'q1' is repeated; run B: some items have no id); "
        "use --pair-by line"
    )


def test_an_item_scored_in_one_run_only_is_counted_on_its_side() -> None:
    a = [record(1, "q1", 0.5), record(2, "q2", None), record(3, "q3", None)]
    b = [record(1, "q1", 0.5), record(2, "q2", 1.0), record(3, "q3", None)]
    c = compare_runs(a, b, scorer=RECALL)
    assert (c.paired, c.not_scored, c.unscored_a, c.unscored_b) == (3, 2, 1, 0)
    flipped_sides = compare_runs(b, a, scorer=RECALL)
    assert (flipped_sides.unscored_a, flipped_sides.unscored_b) == (0, 1)


def test_no_item_scored_in_both_runs_has_no_mean() -> None:
    c = compare_runs([record(1, "q1", None)], [record(1, "q1", 1.0)], scorer=RECALL)
    assert (c.mean_a, c.mean_b, c.diff, c.interval) == (None, None, None, None)


def test_among_equal_differences_the_item_with_more_flips_comes_first() -> None:
    a = [record(1, "q1", 1.0, claims=1), record(2, "q2", 1.0, claims=3)]
    b = [record(1, "q1", 0.0, claims=1), record(2, "q2", 0.0, claims=3)]
    c = compare_runs(a, b, scorer=RECALL)
    assert [(p.line_a, len(p.flips)) for p in c.pairs] == [(2, 3), (1, 1)]


def test_a_regression_must_exceed_the_margin_and_exclude_zero() -> None:
    a = [record(i, f"q{i}", 1.0) for i in range(1, 5)]
    b = [record(i, f"q{i}", 0.5) for i in range(1, 5)]
    c = compare_runs(a, b, scorer=RECALL)
    assert c.diff == -0.5 and c.interval is not None
    assert regression(c, 0.25) is not None
    assert regression(c, 0.5) is None  # exactly the margin: not more than it
    reaching_zero = c.model_copy(update={"interval": Interval(low=-0.9, high=0.0)})
    assert regression(reaching_zero, 0.25) is None
    below_zero = c.model_copy(update={"interval": Interval(low=-0.9, high=-0.5)})
    assert regression(below_zero, 0.25) is not None
