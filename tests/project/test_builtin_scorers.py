"""What lists the built-in scorers outside their registry entries is written from those entries
by `scripts/builtin_scorers.py`: the Mastra module's scorer table and exports and the imports
that show type checkers the scorers' public names (files shipped as they are, so checked here),
and, as the site builds, the documentation's scorer pages and API entries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

import offline_recall
from offline_recall.scorer.builtins import BUILTINS, public_names

from ..conftest import load_script

SCRIPT = load_script("builtin_scorers")
DOCS = SCRIPT.ROOT / "docs"


def test_the_generated_parts_are_the_registrys() -> None:
    for path in SCRIPT.FILES:
        assert path.read_text(encoding="utf-8") == SCRIPT.rewritten(path), (
            f"{path.relative_to(SCRIPT.ROOT)} is not what the registry gives: run {SCRIPT.COMMAND}"
        )


def test_check_names_a_file_that_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert SCRIPT.differing() == []
    begin, end = SCRIPT.markers(SCRIPT.JS, "exports")
    stale = tmp_path / "index.d.ts"
    stale.write_text(f"{begin}\nexport declare function gone(): void;\n{end}\n", encoding="utf-8")
    monkeypatch.setitem(SCRIPT.FILES, stale, (SCRIPT.JS, (("exports", SCRIPT.ts_exports),)))
    assert SCRIPT.differing() == [stale]
    done = subprocess.run(
        [sys.executable, str(SCRIPT.ROOT / "scripts" / "builtin_scorers.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "")


def test_the_mastra_module_offers_each_built_in_scorer_mastra_has() -> None:
    code = (SCRIPT.MASTRA_MODULE / "index.js").read_text(encoding="utf-8")
    types = (SCRIPT.MASTRA_MODULE / "index.d.ts").read_text(encoding="utf-8")
    for scorer_id, mastra in SCRIPT.offered():
        assert f'createOfflineRecallScorer("{scorer_id}", config);' in code, scorer_id
        assert f"export const {mastra.function} = (config) =>" in code, scorer_id
        assert f"export declare function {mastra.function}(" in types, scorer_id
    relevance = "/** Mastra's `createContextRelevanceScorerLLM`, scored by offline-recall. */\n"
    assert relevance + "export const createContextRelevanceScorer = (config) =>" in code


def test_type_checkers_see_each_public_name_of_the_built_in_scorers() -> None:
    init = Path(offline_recall.__file__).read_text(encoding="utf-8")
    for name, module in public_names().items():
        imported = f"from {module.removeprefix('offline_recall')} import {name} as {name}"
        wrapped = (
            f"from {module.removeprefix('offline_recall')} import (\n        {name} as {name},"
        )
        assert imported in init or wrapped in init, name


def test_the_nav_lists_each_built_in_scorers_page_and_no_other() -> None:
    config = yaml.safe_load((SCRIPT.ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = SCRIPT.on_config(SimpleNamespace(nav=config["nav"])).nav
    (listed,) = [item[SCRIPT.NAV_SECTION] for item in nav if SCRIPT.NAV_SECTION in item]
    assert listed == [
        {"Context recall": "scorers/context-recall.md"},
        {"Context precision": "scorers/context-precision.md"},
        {"Faithfulness": "scorers/faithfulness.md"},
        {"Context relevance": "scorers/context-relevance.md"},
    ]
    pages = sorted(str(p.relative_to(DOCS)) for p in (DOCS / "scorers").glob("*.md"))
    assert pages == sorted(SCRIPT.scorer_page(scorer_id) for scorer_id in BUILTINS)


def test_the_api_reference_holds_each_public_name_of_the_built_in_scorers() -> None:
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    built = SCRIPT.on_page_markdown(
        api, page=SimpleNamespace(file=SimpleNamespace(src_uri="api.md"))
    )
    assert SCRIPT.API_MARKER not in built
    for name in public_names():
        assert f"\n::: offline_recall.{name}\n" in built, name
    other = SimpleNamespace(file=SimpleNamespace(src_uri="runs.md"))
    assert SCRIPT.on_page_markdown(api, page=other) == api
    with pytest.raises(ValueError, match="needs one line"):
        SCRIPT.api_page(built)
