"""Comparing three runs or more: the ranking, Holm's adjustment, the forest plot, and the
regression gate of `--fail-if-worse`, on generated runs with known differences."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from offline_recall import ItemRecord, RecallResult, Status
from offline_recall.cli import main
from offline_recall.report.ranking import rank_runs
from offline_recall.report.stats import holm
from offline_recall.runs.results import as_json_line

from ..conftest import RECALL

FAKE = "fake@0000000000000000"
ITEMS = 60


def record(
    line: int, score: float | None, *, model: str = FAKE, id: str | None = None
) -> ItemRecord:
    result = RecallResult(
        scorer=RECALL,
        score=score,
        reason="",
        status=Status.OK if score is not None else Status.ERROR,
        error=None if score is not None else "broken",
        model_fingerprint=model,
        prompt_version="v4",
        judge_profile="fake-overlap",
        library_version="0.2.0",
    )
    return ItemRecord(line=line, id=id or f"q{line}", context=["chunk"], results={RECALL: result})


def base_scores(seed: int = 3) -> list[float]:
    """Recall-shaped scores (quarters) of ITEMS items."""
    rng = random.Random(seed)
    return [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _ in range(ITEMS)]


def shifted(scores: list[float], shift: float, items: range) -> list[ItemRecord]:
    """`scores` with `shift` added on `items` (kept in [0, 1])."""
    return [
        record(i + 1, min(1.0, max(0.0, s + shift)) if i in items else s)
        for i, s in enumerate(scores)
    ]


def noisy(scores: list[float], seed: int) -> list[ItemRecord]:
    """`scores` moved up or down a quarter on a few items each, as often one way as the other."""
    rng = random.Random(seed)
    moved = rng.sample(range(ITEMS), 12)
    out = list(scores)
    for n, i in enumerate(moved):
        step = 0.25 if n % 2 == 0 else -0.25
        if not 0 <= out[i] + step <= 1:
            step = -step
        out[i] += step
    return [record(i + 1, s) for i, s in enumerate(out)]


def write_run(path: Path, records: list[ItemRecord]) -> Path:
    path.write_text("".join(as_json_line(r) + "\n" for r in records))
    return path


def four_runs() -> dict[str, list[ItemRecord]]:
    """A base run, one better on 20 items, one worse on 30, and one that is noise."""
    scores = [0.25 if s < 0.5 else 0.5 for s in base_scores()]
    return {
        "base.jsonl": [record(i + 1, s) for i, s in enumerate(scores)],
        "better.jsonl": shifted(scores, 0.5, range(20)),
        "worse.jsonl": shifted(scores, -0.25, range(10, 40)),
        "noise.jsonl": noisy(scores, seed=5),
    }


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["compare", *args])
    return result.exit_code, result.output


def test_the_ranking_orders_runs_by_mean_and_counts_against_the_best() -> None:
    runs = four_runs()
    r = rank_runs(list(runs.values()), list(runs), scorer=RECALL)
    means = {
        name: sum(x.result(RECALL).score or 0 for x in rs) / ITEMS for name, rs in runs.items()
    }
    assert [run.name for run in r.runs] == sorted(means, key=lambda n: -means[n])
    assert r.best.name == "better.jsonl" and r.best.versus is None
    for run in r.runs[1:]:
        assert run.versus is not None
        assert run.mean == pytest.approx(means[run.name])
        assert run.versus.diff == pytest.approx(means[run.name] - means["better.jsonl"])
    base = next(run for run in r.runs if run.name == "base.jsonl")
    assert base.versus is not None
    assert (base.versus.wins, base.versus.ties, base.versus.losses) == (0, 40, 20)
    assert base.versus.interval is not None and base.versus.interval.high < 0
    assert (r.in_all, r.compared, r.not_in_all, r.not_scored) == (ITEMS, ITEMS, 0, 0)
    assert r.disagreements[0].spread == max(d.spread for d in r.items)


def test_holm_matches_a_hand_computation() -> None:
    # sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> 0.06 (never below the one before)
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
    runs = four_runs()
    r = rank_runs(list(runs.values()), list(runs), scorer=RECALL)
    raw = [binomtest(v.wins, v.wins + v.losses).pvalue for run in r.runs if (v := run.versus)]
    order = sorted(range(3), key=lambda i: raw[i])
    by_hand = [0.0] * 3
    by_hand[order[0]] = min(1, 3 * raw[order[0]])
    by_hand[order[1]] = max(by_hand[order[0]], min(1, 2 * raw[order[1]]))
    by_hand[order[2]] = max(by_hand[order[1]], min(1, raw[order[2]]))
    versus = [run.versus for run in r.runs if run.versus is not None]
    assert [v.p_holm for v in versus] == pytest.approx(by_hand)
    assert [v.p_value for v in versus] == pytest.approx(raw)


def test_the_ranking_is_the_same_on_every_run(tmp_path: Path) -> None:
    runs = four_runs()
    paths = [str(write_run(tmp_path / name, rs)) for name, rs in runs.items()]
    first = cli(*paths)
    assert first[0] == 0, first[1]
    assert cli(*paths) == first
    assert rank_runs(list(runs.values()), list(runs), scorer=RECALL) == rank_runs(
        list(runs.values()), list(runs), scorer=RECALL
    )


def test_cli_prints_the_ranking_and_writes_a_forest_plot(tmp_path: Path) -> None:
    runs = four_runs()
    paths = [str(write_run(tmp_path / name, rs)) for name, rs in runs.items()]
    html = tmp_path / "rank.html"
    code, out = cli(*paths, "--html", str(html), "--show", "2")
    assert code == 0, out
    assert "Context Recall Scorer: 4 runs ranked, best first" in out
    assert f"every run: model {FAKE}, prompt v4" in out
    assert f"paired by id: {ITEMS} items in every run; {ITEMS} compared" in out
    table = out[out.index("rank  run") :].splitlines()
    assert table[1].split()[:2] == ["1", "better.jsonl"] and "best" in table[1]
    assert "adjusted by Holm's method for 3 comparisons" in out
    assert "items where the runs disagree most:" in out and "... and" in out
    page = html.read_text()
    assert '<svg class="scatter forest"' in page and "<script" not in page
    assert page.count("<rect x=") == 1 + 3  # the plane, and one square per run against the best


def test_runs_that_do_not_share_items_or_a_judge(tmp_path: Path) -> None:
    runs = four_runs()
    runs["base.jsonl"] = runs["base.jsonl"][:50]
    paths = [str(write_run(tmp_path / name, rs)) for name, rs in runs.items()]
    code, out = cli(*paths)
    assert code == 0, out
    assert "paired by id: 50 items in every run, left out: 10 in some runs only; 50 compared" in out
    other = [record(i, 0.5, model="judge@2") for i in range(1, ITEMS + 1)]
    odd = str(write_run(tmp_path / "other.jsonl", other))
    code, out = cli(*paths, odd)
    assert code == 1
    said = f"other.jsonl against base.jsonl: model: base.jsonl {FAKE}; other.jsonl judge@2"
    assert f"the runs differ ({said})" in out
    assert "--allow-mismatch" in out
    code, out = cli(*paths, odd, "--allow-mismatch")
    assert code == 0 and out.startswith("WARNING: the runs differ")


def test_the_gate_fails_on_a_planted_regression(tmp_path: Path) -> None:
    runs = four_runs()
    paths = {name: str(write_run(tmp_path / name, rs)) for name, rs in runs.items()}
    code, out = cli(*paths.values(), "--fail-if-worse", paths["base.jsonl"], "--margin", "0.05")
    assert code == 1, out
    lines = [line for line in out.splitlines() if line.startswith("regression:")]
    assert len(lines) == 1
    # 30 items a quarter lower of 60: 0.125 below
    assert lines[0].startswith(
        "regression: worse.jsonl: recall is 0.1250 below base.jsonl's (more than the margin 0.05):"
        " difference -0.1250, 95% CI [-"
    )
    code, out = cli(
        paths["base.jsonl"], paths["worse.jsonl"], "--fail-if-worse", paths["base.jsonl"]
    )
    assert code == 1 and "regression: worse.jsonl" in out
    assert "B vs A" in out  # two runs still print the A/B comparison
    code, out = cli(
        paths["base.jsonl"], paths["worse.jsonl"], "--fail-if-worse", paths["base.jsonl"],
        "--margin", "0.2",
    )  # fmt: skip
    assert code == 0 and "no regression" in out


def test_the_gate_passes_on_noise(tmp_path: Path) -> None:
    scores = base_scores()
    base = str(write_run(tmp_path / "base.jsonl", [record(i + 1, s) for i, s in enumerate(scores)]))
    runs = [str(write_run(tmp_path / f"n{k}.jsonl", noisy(scores, seed=k))) for k in range(4)]
    code, out = cli(base, *runs, "--fail-if-worse", base, "--margin", "0.02")
    assert code == 0, out
    assert out.rstrip().endswith(
        "no regression: no run's recall is below base.jsonl's by more than 0.02 with the "
        "interval of the difference excluding 0"
    )


def test_a_baseline_that_is_not_compared_is_refused(tmp_path: Path) -> None:
    runs = four_runs()
    paths = [str(write_run(tmp_path / name, rs)) for name, rs in runs.items()]
    elsewhere = str(write_run(tmp_path / "elsewhere.jsonl", runs["base.jsonl"]))
    code, out = cli(*paths[1:], "--fail-if-worse", elsewhere)
    assert code == 1 and "is not one of the runs compared" in out
    code, out = cli(paths[0])
    assert code == 1 and "compare needs two runs or more" in out
