"""`offline-recall mastra-module`: the Mastra scorers' npm package, written whole into a
project, with the path npm needs to install it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import __version__
from offline_recall.cli import main
from offline_recall.integrations import MASTRA_FILES, MASTRA_MODULE
from offline_recall.scorer.builtins import BUILTINS


def test_the_mastra_module_is_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "project" / "offline-recall-mastra"
    for _ in range(2):  # a second run replaces the package's files
        done = CliRunner().invoke(main, ["mastra-module", "--out", str(out)])
        assert done.exit_code == 0, done.output
        assert f"npm install {out.as_posix()}" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(MASTRA_FILES)
    for name in MASTRA_FILES:
        assert (out / name).read_bytes() == (MASTRA_MODULE / name).read_bytes()
    package = json.loads((out / "package.json").read_text(encoding="utf-8"))
    assert (package["name"], package["version"]) == ("offline-recall-mastra", __version__)
    assert sorted(package["files"]) == sorted(set(MASTRA_FILES) - {"package.json"})
    code = (out / "index.js").read_text(encoding="utf-8")
    types = (out / "index.d.ts").read_text(encoding="utf-8")
    offered = [found.mastra.function for found in BUILTINS.values() if found.mastra is not None]
    for name in (*offered, "createOfflineRecallScorer"):
        assert f"export const {name}" in code or f"export function {name}" in code, name
        assert f"export declare function {name}" in types, name


def test_the_mastra_module_names_a_relative_folder_as_npm_needs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["mastra-module", "--out", "vendor/scorers"])
    assert "npm install ./vendor/scorers" in done.stdout
    (tmp_path / "file").write_text("x")
    refused = CliRunner().invoke(main, ["mastra-module", "--out", "file"])
    assert refused.exit_code == 2
    assert "'file' is a file" in refused.stderr
