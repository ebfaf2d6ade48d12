"""The persistent claim cache: reused across runs, keyed by model and prompt, failures not kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.cli import main
from offline_recall.engines import Failed
from offline_recall.runs.claim_cache import ClaimCache

from ..conftest import EXAMPLE

RUN = {"ground_truth": "Paris is in France. It is big.", "output": None}
OPTIONS = ContextRecallOptions(context=["Paris is in France."])


def test_a_second_scorer_extracts_nothing_again(tmp_path: Path) -> None:
    cache = ClaimCache(tmp_path / "claims.sqlite")
    first, second = FakeEngine(), FakeEngine()
    a = create_context_recall_scorer(first, OPTIONS, claim_cache=cache).run(RUN)
    b = create_context_recall_scorer(second, OPTIONS, claim_cache=cache).run(RUN)
    assert first.json_calls and not second.json_calls
    assert a == b
    assert cache.info().entries == 1


def test_another_model_or_prompt_does_not_reuse_claims(tmp_path: Path) -> None:
    cache = ClaimCache(tmp_path / "claims.sqlite")
    create_context_recall_scorer(FakeEngine(), OPTIONS, claim_cache=cache).run(RUN)
    other = FakeEngine(fingerprint="other@1111111111111111")
    create_context_recall_scorer(other, OPTIONS, claim_cache=cache).run(RUN)
    assert other.json_calls
    assert cache.get("fake@0000000000000000", "v2", [RUN["ground_truth"]]) == {}
    assert cache.get("fake@0000000000000000", "v1", [RUN["ground_truth"]]) != {}


def test_a_failed_extraction_is_not_kept(tmp_path: Path) -> None:
    cache = ClaimCache(tmp_path / "claims.sqlite")
    broken = FakeEngine(lists={RUN["ground_truth"]: Failed("no JSON")})
    result = create_context_recall_scorer(broken, OPTIONS, claim_cache=cache).run(RUN)
    assert result.status == "error"
    assert cache.info().entries == 0


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_cli_fills_shows_and_clears_the_cache(tmp_path: Path, cache_dir: Path) -> None:
    runner = CliRunner()
    out = str(tmp_path / "r.jsonl")
    no_cache = runner.invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--out", out, "--no-cache"]
    )
    assert no_cache.exit_code == 0, no_cache.output
    assert not (cache_dir / "claims.sqlite").exists()
    scored = runner.invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--out", out, "--restart"]
    )
    assert scored.exit_code == 0, scored.output
    info = runner.invoke(main, ["cache", "info"])
    assert info.exit_code == 0, info.output
    assert str(cache_dir / "claims.sqlite") in info.output
    entries = int(info.output.split("entries:")[1].split()[0])
    assert entries > 0
    cleared = runner.invoke(main, ["cache", "clear"])
    assert f"removed {entries} entries" in cleared.output
    assert "entries:  0" in runner.invoke(main, ["cache", "info"]).output
