"""Comparing two runs: pairing, the paired statistics, flips, and refusing mismatched runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from offline_recall import ClaimVerdict, ItemRecord, RecallResult, Status
from offline_recall.cli import main
from offline_recall.errors import DatasetError
from offline_recall.report.comparison import PairBy
from offline_recall.report.comparison import compare_runs as compare_any
from offline_recall.report.stats import bootstrap_mean, sign_test
from offline_recall.runs.results import as_json_line

from ..conftest import EXAMPLE, RECALL


def compare_runs(a: list[ItemRecord], b: list[ItemRecord], **kw):  # type: ignore[no-untyped-def]
    return compare_any(a, b, scorer=RECALL, **kw)


def record(
    line: int,
    score: float | None,
    verdicts: list[tuple[str, bool]] = (),  # type: ignore[assignment]
    *,
    id: str | None = None,
    model: str = "judge@1",
    prompt: str = "v1",
    context: list[str] | None = None,
) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=score,
        reason="",
        status=Status.OK if score is not None else Status.ERROR,
        error=None if score is not None else "broken",
        verdicts=tuple(
            ClaimVerdict(
                claim=c, supported=s, probability=0.9 if s else 0.1, chunk_index=0 if s else None
            )
            for c, s in verdicts
        ),
        model_fingerprint=model,
        prompt_version=prompt,
        judge_profile="p",
        library_version="0.2.0",
    )
    return ItemRecord(
        line=line,
        id=id if id is not None else f"q{line}",
        context=context,
        results={RECALL: result},
    )


def constructed_runs() -> tuple[list[ItemRecord], list[ItemRecord]]:
    """40 items: B is 0.5 better on 12, 0.25 worse on 3, and tied on 25."""
    a, b = [], []
    for i in range(1, 41):
        base = (i % 5) / 10
        shift = 0.5 if i <= 12 else -0.25 if i <= 15 else 0.0
        a.append(record(i, base))
        b.append(record(i, base + shift))
    return a, b


def test_means_difference_and_win_tie_loss_of_a_known_pair() -> None:
    a, b = constructed_runs()
    c = compare_runs(a, b)
    assert c.paired_by == PairBy.ID and c.paired == c.compared == 40
    assert c.mean_a == pytest.approx(sum(r.result(RECALL).score or 0 for r in a) / 40)
    assert c.mean_b == pytest.approx(sum(r.result(RECALL).score or 0 for r in b) / 40)
    assert c.diff == pytest.approx((12 * 0.5 - 3 * 0.25) / 40)
    assert (c.wins, c.ties, c.losses) == (12, 25, 3)
    assert c.mismatch == ()


def test_sign_test_p_value_matches_the_binomial_by_hand() -> None:
    a, b = constructed_runs()
    c = compare_runs(a, b)
    # two-sided: twice the chance of 12 or more heads in 15 fair tosses
    by_hand = 2 * sum(math.comb(15, k) for k in range(12, 16)) / 2**15
    assert c.p_value == pytest.approx(by_hand)
    assert c.p_value == pytest.approx(binomtest(12, 15, 0.5).pvalue)
    assert sign_test(0, 0) == 1.0


def test_bootstrap_interval_covers_the_true_difference_and_is_repeatable() -> None:
    rng = np.random.default_rng(7)
    truth = 0.1
    scores_a = rng.uniform(0.2, 0.8, size=300)
    noise = rng.normal(0, 0.15, size=150)
    # antithetic noise: the sample's mean difference is the true one, so coverage is certain
    # for a correct interval and any bias or wrong width shows
    scores_b = scores_a + truth + np.concatenate([noise, -noise])
    a = [record(i, float(s)) for i, s in enumerate(scores_a, start=1)]
    b = [record(i, float(s)) for i, s in enumerate(scores_b, start=1)]
    c = compare_runs(a, b)
    assert c.interval is not None
    assert c.interval.low < truth < c.interval.high
    assert c.interval.low > 0
    diffs = scores_b - scores_a
    half_width = 1.96 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    assert c.interval.high - c.interval.low == pytest.approx(2 * half_width, rel=0.15)
    assert compare_runs(a, b).interval == c.interval


def test_bootstrap_of_too_few_or_constant_values() -> None:
    assert bootstrap_mean([0.5]) is None
    interval = bootstrap_mean([0.25, 0.25, 0.25])
    assert interval is not None and (interval.low, interval.high) == (0.25, 0.25)


def test_flips_are_listed_worst_items_first_lost_before_gained() -> None:
    a = [
        record(1, 1.0, [("x", True), ("y", True)]),
        record(2, 0.5, [("p", True), ("q", False)]),
        record(3, 0.5, [("m", True), ("n", False)]),
    ]
    b = [
        record(1, 0.75, [("x", True), ("y", False)]),
        record(2, 0.5, [("p", False), ("q", True)]),
        record(3, 0.0, [("m", False), ("n", False), ("o", False)]),
    ]
    c = compare_runs(a, b)
    assert [(p.id, f.claim, f.lost) for p, f in c.flips] == [
        ("q3", "m", True),
        ("q1", "y", True),
        ("q2", "p", True),
        ("q2", "q", False),
    ]


def test_pairs_by_id_across_orders_and_by_line_when_ids_do_not_match() -> None:
    a = [record(1, 0.0, id="x"), record(2, 1.0, id="y")]
    b = [record(1, 1.0, id="y"), record(2, 1.0, id="x"), record(3, 0.5, id="z")]
    by_id = compare_runs(a, b)
    assert by_id.paired_by == PairBy.ID
    assert (by_id.paired, by_id.only_a, by_id.only_b, by_id.wins, by_id.ties) == (2, 0, 1, 1, 1)
    renamed = [record(1, 0.0, id="a-x"), record(2, 1.0, id="a-y")]
    by_line = compare_runs(renamed, b)
    assert by_line.paired_by == PairBy.LINE and by_line.paired == 2
    with pytest.raises(DatasetError, match="cannot pair by id"):
        compare_runs([record(1, 0.0, id="x"), record(2, 0.0, id="x")], b, pair_by=PairBy.ID)


def test_items_failed_in_either_run_are_counted_not_compared() -> None:
    a = [record(1, 0.5), record(2, None)]
    b = [record(1, 1.0), record(2, 1.0)]
    c = compare_runs(a, b)
    assert (c.paired, c.compared, c.not_scored) == (2, 1, 1)
    assert c.diff == pytest.approx(0.5)


def write_run(path: Path, records: list[ItemRecord]) -> Path:
    path.write_text("".join(as_json_line(r) + "\n" for r in records))
    return path


def test_cli_prints_the_comparison_and_writes_html(tmp_path: Path) -> None:
    a, b = constructed_runs()
    a[0] = record(1, 1.0, [("The tower is in Paris.", True)], context=["The tower is in Paris."])
    b[0] = record(1, 0.0, [("The tower is in Paris.", False)], context=["Rome."])
    html = tmp_path / "ab.html"
    result = CliRunner().invoke(
        main,
        [
            "compare",
            str(write_run(tmp_path / "a.jsonl", a)),
            str(write_run(tmp_path / "b.jsonl", b)),
            "--html",
            str(html),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "paired by id: 40 pairs; 40 compared" in result.output
    assert "B vs A         11 better, 25 tied, 4 worse" in result.output
    assert "verdict flips: 1 claim in 1 item," in result.output
    assert "line 1 (q1)  1.00 -> 0.00 (-1.0000)" in result.output
    page = html.read_text()
    assert "Verdict flips (1)" in page
    assert "<mark>tower</mark>" in page and "<mark>Paris</mark>" in page


def test_runs_of_different_models_are_refused_unless_allowed(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", [record(1, 0.5), record(2, 0.5)])
    b = write_run(tmp_path / "b.jsonl", [record(1, 1.0, model="other@2"), record(2, 1.0)])
    refused = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert refused.exit_code == 1
    assert "the runs differ (model: A judge@1; B judge@1, other@2)" in refused.output
    assert "--allow-mismatch" in refused.output
    allowed = CliRunner().invoke(main, ["compare", str(a), str(b), "--allow-mismatch"])
    assert allowed.exit_code == 0, allowed.output
    assert allowed.output.startswith("WARNING: the runs differ (model: A judge@1; B judge@1")


def test_prompt_version_mismatch_is_refused(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", [record(1, 0.5)])
    b = write_run(tmp_path / "b.jsonl", [record(1, 0.5, prompt="v2")])
    refused = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert refused.exit_code == 1 and "prompt version: A v1; B v2" in refused.output


def test_a_file_that_is_not_a_result_file_is_a_one_line_error(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", [record(1, 0.5)])
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"input": "q", "context": []}\n')
    result = CliRunner().invoke(main, ["compare", str(a), str(bad)])
    assert result.exit_code == 1
    assert "b.jsonl line 1: not a result record" in result.output


def _score(data: Path, out: Path, *args: str) -> Path:
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), *args]
    )
    assert result.exit_code == 0, result.output
    return out


def test_runs_at_another_scale_are_refused_naming_what_differs(tmp_path: Path) -> None:
    """Specs that differ in anything but the retrieved context are not comparable."""
    one = _score(EXAMPLE, tmp_path / "one.jsonl")
    ten = _score(EXAMPLE, tmp_path / "ten.jsonl", "--scale", "10")
    refused = CliRunner().invoke(main, ["compare", str(one), str(ten)])
    assert refused.exit_code == 1
    assert "scorers.context-recall-scorer.scale 1.0 vs 10.0" in refused.output
    allowed = CliRunner().invoke(main, ["compare", str(one), str(ten), "--allow-mismatch"])
    assert allowed.exit_code == 0 and "scale 1.0 vs 10.0" in allowed.output


def test_runs_with_other_scorers_compare_the_scorers_they_share(tmp_path: Path) -> None:
    """A scorer only one run has is left out, said in one line; the shared one is compared
    though the runs' specs differ in the other."""
    a = _score(EXAMPLE, tmp_path / "a.jsonl")
    b = _score(EXAMPLE, tmp_path / "b.jsonl", "--scorer", f"{RECALL},context-precision-scorer")
    compared = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert compared.exit_code == 0, compared.output
    assert "compare: context-precision-scorer is left out: only b.jsonl scored it" in (
        compared.output
    )
    assert "Context Recall Scorer: B against A" in compared.output
    assert "the runs differ" not in compared.output and "WARNING" not in compared.output


def test_a_shared_scorer_scored_differently_is_still_refused(tmp_path: Path) -> None:
    a = _score(EXAMPLE, tmp_path / "a.jsonl", "--scorer", f"{RECALL},context-precision-scorer")
    b = _score(EXAMPLE, tmp_path / "b.jsonl", "--scale", "10")
    refused = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert refused.exit_code == 1
    assert "scorers.context-recall-scorer.scale 1.0 vs 10.0" in refused.output
    assert "context-precision-scorer is left out: only a.jsonl scored it" in refused.output


def test_runs_of_one_spec_on_different_contexts_compare(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    other.write_text("".join(json.dumps({**r, "context": r["context"][:1]}) + "\n" for r in rows))
    a = _score(EXAMPLE, tmp_path / "a.jsonl")
    b = _score(other, tmp_path / "b.jsonl")
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "paired by id: 12 pairs" in result.output
