"""The README's examples, run as a user would run them.

A fenced block preceded by `<!-- check: fake -->` runs in the fast tier, `<!-- check: model -->`
with the real embedded model, both in README order in one working folder (so a block can use
the files an earlier one wrote). In a `console` block each `$ offline-recall ...` line runs, and
the lines quoted under it must appear in its output, in order; a `python` block runs as it
stands; a `json` block must be a result record as `score` writes it.
"""

from __future__ import annotations

import os
import re
import runpy
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import ItemRecord
from offline_recall.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ROSE = ROOT.parent / "shared" / "data" / "rose" / "e2e_acu_recall_dev.jsonl"
_BLOCK = re.compile(r"<!-- check: (\w+) -->\n```(\w+)\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Block:
    tier: str
    language: str
    text: str
    line: int


def blocks(tiers: tuple[str, ...]) -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [
        Block(m.group(1), m.group(2), m.group(3), text[: m.start()].count("\n") + 1)
        for m in _BLOCK.finditer(text)
        if m.group(1) in tiers
    ]


def commands(block: Block) -> Iterator[tuple[str, list[str]]]:
    """Each `$ command` of a console block with the output lines quoted under it."""
    command: str | None = None
    quoted: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, quoted
            command, quoted = line[2:], []
        elif line.strip():
            quoted.append(line)
    if command is not None:
        yield command, quoted


def run_console(block: Block) -> None:
    for command, quoted in commands(block):
        program, *args = shlex.split(command)
        assert program == "offline-recall", f"README line {block.line}: {command}"
        result = CliRunner().invoke(main, args)
        lines = [line.rstrip() for line in result.output.splitlines()]
        missing = _not_in_order(quoted, lines)
        assert missing is None, (
            f"README line {block.line}: `{command}` did not print {missing!r}; it printed:\n"
            + result.output
        )


def _not_in_order(quoted: list[str], lines: list[str]) -> str | None:
    """The first quoted line not found (in order) among the printed lines, or None."""
    at = 0
    for want in quoted:
        found = next((i for i in range(at, len(lines)) if lines[i] == want.rstrip()), None)
        if found is None:
            return want
        at = found + 1
    return None


def run_block(block: Block, folder: Path) -> None:
    if block.language == "console":
        run_console(block)
    elif block.language == "python":
        script = folder / f"readme_{block.line}.py"
        script.write_text(block.text, encoding="utf-8")
        runpy.run_path(str(script), run_name="__main__")
    elif block.language == "json":
        ItemRecord.model_validate_json(block.text)
    else:
        raise AssertionError(f"README line {block.line}: no check for {block.language} blocks")


def in_ci() -> bool:
    """CI sets CI=true; its checkout has ../shared beside it."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def need_rose() -> None:
    """The README's blocks read RoSE's split from ../shared/data. A checkout without it skips
    them, saying so; in CI, where it must be there, its absence fails the test."""
    if ROSE.is_file():
        return
    reason = f"labelled data not found at {ROSE}"
    if in_ci():
        pytest.fail(f"{reason}: CI's checkout must have ../shared/data beside it")
    pytest.skip(reason)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding what the README's commands name: the example dataset at its
    path in a checkout, and RoSE's ACU recall split."""
    need_rose()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "offline_recall").symlink_to(ROOT / "offline_recall")
    shutil.copy(ROSE, tmp_path / ROSE.name)
    return tmp_path


def test_readme_examples_on_the_fake_engine(folder: Path) -> None:
    checked = blocks(("fake",))
    assert len(checked) >= 4
    for block in checked:
        run_block(block, folder)


@pytest.mark.model
def test_readme_examples_on_the_embedded_model(folder: Path) -> None:
    checked = blocks(("fake", "model"))
    assert any(b.tier == "model" for b in checked)
    for block in checked:
        run_block(block, folder)
    # What the README says of the example run is what the run gives.
    results = Path("example-results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [ItemRecord.model_validate_json(line) for line in results]
    judged = [j for r in records for j in r.results["context-recall-scorer"].judgments()]
    said = re.search(r"supports (\d+) of (\d+) claims", README.read_text(encoding="utf-8"))
    assert said is not None
    assert (int(said.group(1)), int(said.group(2))) == (
        sum(j.positive for j in judged),
        len(judged),
    )
