"""A model's defaults for each scorer live in the manifest's `[scorers.<id>]` tables; the older
top-level `prompt_version` and `decoding.max_claims` still read, and a run's own choice wins."""

from __future__ import annotations

from pathlib import Path

from offline_recall.engines.base import ScorerDefaults
from offline_recall.engines.manifests import Decoding
from offline_recall.metrics.faithfulness import ID as FAITHFULNESS
from offline_recall.metrics.precision import ID as PRECISION
from offline_recall.runs.resolve import resolve_spec
from offline_recall.scorer.judge_setup import resolve_setup
from offline_recall.scorer.registry import scorer_kind
from offline_recall.scorer.results import ScorerSetup

from ..conftest import RECALL

ROOT = Path(__file__).resolve().parents[2]
PRECISION_LATEST = scorer_kind(PRECISION).prompt_versions()[-1]


def setup(
    scorer: str,
    tables: dict[str, ScorerDefaults],
    *,
    older: str | None = None,
    max_claims: int = 12,
    asked: str | None = None,
) -> ScorerSetup:
    return resolve_setup(
        scorer_kind(scorer),
        fingerprint="m@1",
        scorers=tables,
        manifest_prompt_version=older,
        threshold=0.5,
        decoding=Decoding(max_claims=max_claims),
        prompt_version=asked,
    ).setup


def test_a_scorers_table_names_its_prompt_version_and_list_bound() -> None:
    found = setup(RECALL, {RECALL: ScorerDefaults(prompt_version="v2", max_items=5)})
    assert (found.prompt_version, found.max_items) == ("v2", 5)


def test_faithfulness_reads_recalls_table_and_precision_does_not() -> None:
    tables = {RECALL: ScorerDefaults(prompt_version="v2")}
    assert setup(FAITHFULNESS, tables).prompt_version == "v2"
    assert setup(PRECISION, tables).prompt_version == PRECISION_LATEST


def test_the_older_spelling_still_reads_and_a_table_wins_over_it() -> None:
    older = setup(RECALL, {}, older="v3", max_claims=7)
    assert (older.prompt_version, older.max_items) == ("v3", 7)
    assert (
        setup(RECALL, {RECALL: ScorerDefaults(prompt_version="v2")}, older="v3").prompt_version
        == "v2"
    )
    assert setup(PRECISION, {}, older="v3").prompt_version == PRECISION_LATEST


def test_a_runs_own_prompt_version_wins_over_the_manifest() -> None:
    tables = {RECALL: ScorerDefaults(prompt_version="v2")}
    assert setup(RECALL, tables, older="v3", asked="v1").prompt_version == "v1"


def test_the_embedded_manifest_in_either_spelling_gives_the_same_run(tmp_path: Path) -> None:
    """Moving the embedded model's recall settings into their table changed no run identity:
    the manifest written the older way resolves to the same spec digest."""
    text = (ROOT / "models" / "smollm2-135m-instruct.toml").read_text(encoding="utf-8")
    table = '[scorers.context-recall-scorer]\nprompt_version = "v5"\nmax_items = 12'
    assert table in text
    older = text.replace(table, "").replace(
        "context_window = 8192\n", 'context_window = 8192\nprompt_version = "v5"\n'
    )
    older = older.replace("max_new_tokens = 512\n", "max_new_tokens = 512\nmax_claims = 12\n")
    path = tmp_path / "smollm2-135m-instruct.toml"
    path.write_text(older, encoding="utf-8")
    scorers = [RECALL, PRECISION, FAITHFULNESS]
    now = resolve_spec(engine="fake", scorers=scorers)
    before = resolve_spec(str(path), engine="fake", scorers=scorers)
    assert before.model_fingerprint == now.model_fingerprint
    assert before.identity() == now.identity()
    assert now.scorer(RECALL).setup.prompt_version == "v5"
