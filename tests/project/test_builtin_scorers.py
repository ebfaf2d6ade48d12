"""What lists the built-in scorers outside Python (the Mastra module's scorer table and exports,
the API reference's scorer entries) is what `scripts/builtin_scorers.py` writes from their
registry entries."""

from __future__ import annotations

from ..conftest import load_script

SCRIPT = load_script("builtin_scorers")


def test_the_generated_parts_are_the_registrys() -> None:
    for path in SCRIPT.FILES:
        assert path.read_text(encoding="utf-8") == SCRIPT.rewritten(path), (
            f"{path.relative_to(SCRIPT.ROOT)} is not what the registry gives: run {SCRIPT.COMMAND}"
        )


def test_the_mastra_module_offers_each_built_in_scorer_mastra_has() -> None:
    code = (SCRIPT.MASTRA_MODULE / "index.js").read_text(encoding="utf-8")
    types = (SCRIPT.MASTRA_MODULE / "index.d.ts").read_text(encoding="utf-8")
    for scorer_id, mastra in SCRIPT.offered():
        assert f'createOfflineRecallScorer("{scorer_id}", config);' in code, scorer_id
        assert f"export const {mastra.function} = (config) =>" in code, scorer_id
        assert f"export declare function {mastra.function}(" in types, scorer_id
    relevance = "/** Mastra's `createContextRelevanceScorerLLM`, scored by offline-recall. */\n"
    assert relevance + "export const createContextRelevanceScorer = (config) =>" in code
