"""Ranking several runs: pairing, counting, who is compared with whom, and what differs."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import ItemRecord, RecallResult, Status
from offline_recall.errors import DatasetError
from offline_recall.report.comparison import PairBy
from offline_recall.report.ranking import rank_runs
from offline_recall.report.stats import holm

from ..conftest import RECALL


def record(
    line: int, id: Any, score: float | None, profile: str = "p", spec: str | None = None
) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=score,
        status=Status.OK if score is not None else Status.ERROR,
        error=None if score is not None else "broken",
        reason="",
        model_fingerprint="judge@1",
        prompt_version="v1",
        judge_profile=profile,
        library_version="0.2.0",
    )
    return ItemRecord(line=line, id=id, context=["c"], results={RECALL: result}, spec_digest=spec)


def run(scores: list[float | None], **kw: Any) -> list[ItemRecord]:
    return [record(i, f"q{i}", s, **kw) for i, s in enumerate(scores, start=1)]


def test_two_runs_or_more_each_named() -> None:
    message = "^rank_runs needs two runs or more, each with its name$"
    with pytest.raises(ValueError, match=message):
        rank_runs([run([1.0])], ["A"], scorer=RECALL)
    with pytest.raises(ValueError, match=message):
        rank_runs([run([1.0]), run([1.0])], ["A"], scorer=RECALL)
    ranked = rank_runs([run([1.0]), run([0.5])], ["A", "B"], scorer=RECALL)
    assert [r.name for r in ranked.runs] == ["A", "B"]


def test_ids_that_cannot_pair_name_each_run_and_auto_falls_back_to_lines() -> None:
    broken = [record(1, "q1", 1.0), record(2, "q1", 1.0)]
    runs = [run([1.0, 1.0]), broken, [record(1, None, 1.0), record(2, "x", 1.0)]]
    with pytest.raises(DatasetError) as caught:
        rank_runs(runs, ["A", "B", "C"], scorer=RECALL, pair_by=PairBy.ID)
    assert str(caught.value) == (
        "cannot pair by id (run B: id 'q1' is repeated; run C: some items have no id); "
        "use --pair-by line"
    )
    assert rank_runs(runs, ["A", "B", "C"], scorer=RECALL).paired_by is PairBy.LINE
    by_id = rank_runs([run([1.0, 0.5]), run([0.5, 1.0])], ["A", "B"], scorer=RECALL)
    assert by_id.paired_by is PairBy.ID
    assert {d.key for d in by_id.items} == {"id q1", "id q2"}
    disjoint = [run([1.0]), [record(1, "other", 0.5)]]
    assert rank_runs(disjoint, ["A", "B"], scorer=RECALL).paired_by is PairBy.LINE


def test_items_follow_the_first_runs_order_and_carry_its_ids() -> None:
    """Items of equal spread keep the first run's order; paired by line, an item is named by
    the first run's id."""
    a = [record(1, "a1", 1.0), record(2, "a2", 1.0)]
    b = [record(2, "b2", 0.5), record(1, "b1", 0.5)]
    ranked = rank_runs([a, b], ["A", "B"], scorer=RECALL, pair_by=PairBy.LINE)
    assert [(d.key, d.id) for d in ranked.items] == [("line 1", "a1"), ("line 2", "a2")]
    assert all(r.interval is not None for r in ranked.runs)


def test_ids_that_are_not_text_pair_by_their_json() -> None:
    a = [record(1, {"a": 1, "b": 2}, 1.0), record(2, 7, 1.0)]
    b = [record(1, 7, 0.5), record(2, {"b": 2, "a": 1}, 0.5)]
    ranked = rank_runs([a, b], ["A", "B"], scorer=RECALL)
    assert ranked.paired_by is PairBy.ID and ranked.in_all == 2
    assert {d.key for d in ranked.items} == {'id {"a": 1, "b": 2}', "id 7"}


def test_no_item_scored_in_every_run_says_how_many_were_shared() -> None:
    with pytest.raises(DatasetError) as caught:
        rank_runs([run([1.0, None]), run([None, 1.0])], ["A", "B"], scorer=RECALL)
    assert str(caught.value) == "no item is scored in every run (2 found in every run, by id)"


def test_wins_ties_and_losses_against_the_best() -> None:
    best = run([1.0, 1.0, 1.0, 0.5])
    other = run([0.5, 1.0, 0.5, 1.0])
    ranked = rank_runs([other, best], ["other", "best"], scorer=RECALL)
    assert [r.name for r in ranked.runs] == ["best", "other"]
    versus = ranked.runs[1].versus
    assert versus is not None
    assert (versus.wins, versus.ties, versus.losses) == (1, 1, 2)


def test_each_run_after_the_first_says_how_it_differs_from_the_first() -> None:
    runs = [run([1.0], spec="s1"), run([1.0], spec="s2"), run([1.0], spec="s1", profile="q")]
    ranked = rank_runs(runs, ["A", "B", "C"], scorer=RECALL)
    # Each line compares the first run with one other, each value under its run's name.
    assert ranked.mismatch == (
        "B against A: run spec: A s1; B s2",
        "C against A: judge profile: A p; C q",
    )
    given = rank_runs(
        runs, ["A", "B", "C"], scorer=RECALL, mismatch=[["model", "prompt version"], None]
    )
    assert given.mismatch == (
        "B against A: model, prompt version",
        "C against A: judge profile: A p; C q",
    )
    last_given = rank_runs(runs, ["A", "B", "C"], scorer=RECALL, mismatch=[None, ["model"]])
    assert last_given.mismatch == ("B against A: run spec: A s1; B s2", "C against A: model")
    mixed = [[record(1, "q1", 1.0, spec="s1"), record(2, "q2", 1.0, spec="s3")], run([1.0, 1.0])]
    assert rank_runs(mixed, ["A", "B"], scorer=RECALL).mismatch == (
        "B against A: run spec: A s1, s3; B -",
    )
    no_profile = [run([1.0], profile=None), run([1.0])]  # type: ignore[arg-type]
    assert rank_runs(no_profile, ["A", "B"], scorer=RECALL).mismatch == (
        "B against A: judge profile: A -; B p",
    )
    unknown = rank_runs([run([1.0], spec=None), run([1.0], spec="s2")], ["A", "B"], scorer=RECALL)
    assert unknown.mismatch == ("B against A: run spec: A -; B s2",)


def test_holm_keeps_each_adjusted_p_within_one_and_in_order() -> None:
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
