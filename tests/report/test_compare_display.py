"""What `compare` shows: aligned labels, where unscored items failed, a flipped chunk's text,
and both runs' chunks beside a flipped claim."""

from __future__ import annotations

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.metrics.faithfulness import ID as FAITHFULNESS
from offline_recall.metrics.faithfulness import FaithfulnessResult
from offline_recall.metrics.precision import ID as PRECISION
from offline_recall.metrics.precision.result import ChunkVerdict, PrecisionResult
from offline_recall.report.comparison import compare_runs
from offline_recall.report.comparison_text import comparison_text
from offline_recall.report.highlight import closest_chunk
from offline_recall.report.html import render_comparison

from ..conftest import RECALL

COMMON = {
    "reason": "",
    "model_fingerprint": "judge@1",
    "prompt_version": "v1",
    "judge_profile": "p",
    "library_version": "0.2.0",
}


def recall_record(
    line: int, score: float | None, claims: list[tuple[str, bool, int | None]], context: list[str]
) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=score,
        status=Status.OK if score is not None else Status.ERROR,
        error=None if score is not None else "broken",
        verdicts=tuple(
            ClaimVerdict(claim=c, supported=s, probability=0.9 if s else 0.1, chunk_index=i)
            for c, s, i in claims
        ),
        **COMMON,
    )
    return ItemRecord(line=line, id=f"q{line}", context=context, results={RECALL: result})


def precision_record(line: int, relevant: list[bool], context: list[str]) -> ItemRecord:
    result = PrecisionResult(
        scorer=PRECISION,
        score=sum(relevant) / len(relevant),
        status=Status.OK,
        verdicts=tuple(
            ChunkVerdict(chunk_index=i, relevant=r, probability=0.8 if r else 0.2)
            for i, r in enumerate(relevant)
        ),
        **COMMON,
    )
    return ItemRecord(line=line, id=f"q{line}", context=context, results={PRECISION: result})


def test_the_mean_line_keeps_its_label_apart_from_the_numbers() -> None:
    a = [precision_record(1, [True], ["Paris."]), precision_record(2, [False], ["Rome."])]
    text = comparison_text(compare_runs(a, a, scorer=PRECISION))
    assert "mean precision A 0.5000   B 0.5000" in text
    assert text.splitlines()[0] == "Context Precision Scorer: B against A"


def test_a_long_measure_name_still_stands_apart_from_the_numbers() -> None:
    def record(line: int, score: float) -> ItemRecord:
        result = FaithfulnessResult(scorer=FAITHFULNESS, score=score, status=Status.OK, **COMMON)
        return ItemRecord(line=line, id=f"q{line}", context=["x"], results={FAITHFULNESS: result})

    runs = [record(1, 1.0), record(2, 0.0)]
    lines = comparison_text(compare_runs(runs, runs, scorer=FAITHFULNESS)).splitlines()
    mean = next(line for line in lines if line.startswith("mean "))
    assert mean == "mean faithfulness A 0.5000   B 0.5000"
    difference = next(line for line in lines if line.startswith("difference"))
    assert difference.index("B - A") == mean.index("A 0.5")


def test_items_failed_in_both_runs_are_not_said_to_fail_in_one() -> None:
    ok = recall_record(1, 1.0, [("x", True, 0)], ["x"])
    a = [ok, recall_record(2, None, [], ["x"]), recall_record(3, None, [], ["x"])]
    b = [ok, recall_record(2, None, [], ["x"]), recall_record(3, 1.0, [], ["x"])]
    c = compare_runs(a, b, scorer=RECALL)
    text = comparison_text(c)
    assert "not scored: 1 in A only, 1 in both runs" in text
    assert "not scored in one run" not in text
    assert "not scored: 1 in A only, 1 in both runs" in render_comparison([c])


def test_a_flipped_chunk_is_named_with_its_text() -> None:
    a = [precision_record(1, [True, False], ["Paris is in France.", "Rome is in Italy."])]
    b = [precision_record(1, [False, False], ["Bananas are yellow.", "Rome is in Italy."])]
    text = comparison_text(compare_runs(a, b, scorer=PRECISION))
    assert "lost    chunk 0 (rank 1): A 'Paris is in France.', B 'Bananas are yellow.'" in text, (
        text
    )
    assert "verdict flips: 1 chunk in 1 item, worst items first" in text  # chunks, not claims


def test_the_html_shows_each_runs_chunk_beside_a_flipped_claim() -> None:
    claim = "The tower was finished in 1889."
    a = [recall_record(1, 1.0, [(claim, True, 0)], ["The tower was finished in 1889."])]
    b = [
        recall_record(
            1, 0.0, [(claim, False, None)], ["The Colosseum is in Rome.", "The tower is tall."]
        )
    ]
    page = render_comparison([compare_runs(a, b, scorer=RECALL)])
    assert "supporting chunk 0 in A" in page
    assert "B: no chunk supports it; closest by shared words: chunk 1" in page
    assert "The <mark>tower</mark> is tall." in page
    assert "✗ not supported" in page


def test_the_closest_chunk_to_a_missed_korean_claim_holds_its_year() -> None:
    """The name with the claim's particle (훈민정음은) is one word of three; the other chunk
    holds the year and the verb's stem (창제), which the claim states with another ending."""
    context = ["훈민정음은 조선의 문자이다.", "세종대왕은 1443년에 한글을 창제했다."]
    assert closest_chunk(context, "훈민정음은 1443년에 창제되었다.") == 1
    assert closest_chunk(context, "훈민정음은 조선의 문자이다.") == 0
    assert closest_chunk(["The tower is tall.", "It opened in 1889."], "Built in 1889.") == 1
    assert closest_chunk(["Nothing here."], "The tower.") is None
