"""The examples of README.md and docs/, run as a user would run them (parsed with Sybil).

A fenced block preceded by `<!-- check: fake -->` runs in the fast tier, on the fake engine;
`<!-- check: model -->` with the real embedded model. Each page's blocks run in page order in
one working folder of their own, so a block can use the files an earlier one wrote. In a
`console` block each `$ offline-recall ...` line runs, and the lines quoted under it must
appear in its output, in order; a `python` block runs as it stands; a `json` block must be a
result record as `score` writes it. A `text` block preceded by `<!-- check: output -->` is what
the `python` block before it prints: its lines must appear in that output, in order (only
after a fast-tier block, whose output is deterministic). Blocks without a marker are not run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import shlex
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

from offline_recall import ItemRecord
from offline_recall.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
ROSE = ROOT.parent / "shared" / "data" / "rose" / "e2e_acu_recall_dev.jsonl"
_MARK = re.compile(r"<!-- check: (\w+) -->\n\Z")
_PRINTED = "printed"  # the namespace key of what the last python block printed


@dataclass(frozen=True)
class Block:
    tier: str
    language: str
    text: str


class CheckedBlocks:
    """A Sybil parser: the fenced blocks marked with one of `tiers`, and the output blocks
    that follow a marked python block."""

    def __init__(self, tiers: tuple[str, ...]) -> None:
        self.tiers = tiers
        self.lexer = FencedCodeBlockLexer(r"\w+")

    def __call__(self, document: Document) -> Iterable[Region]:
        last_run: str | None = None  # the tier of the python block the next output follows
        for region in self.lexer(document):
            mark = _MARK.search(document.text, 0, region.start)
            language = str(region.lexemes["language"])
            if mark is None:
                last_run = None
                continue
            block = Block(mark.group(1), language, str(region.lexemes["source"]))
            if block.tier == "output":
                where = f"{document.path}, offset {region.start}"
                assert last_run != "model", f"{where}: a model run's output is not checked"
                if last_run is not None:
                    yield Region(region.start, region.end, block, check_output)
                continue
            last_run = block.tier if language == "python" else None
            if block.tier in self.tiers:
                yield Region(region.start, region.end, block, run_block)
            elif language == "python":
                last_run = None  # not run here, so neither is its output checked


def commands(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each `$ command` of a console block with the output lines quoted under it."""
    command: str | None = None
    quoted: list[str] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, quoted
            command, quoted = line[2:], []
        elif line.strip():
            quoted.append(line)
    if command is not None:
        yield command, quoted


def not_in_order(quoted: list[str], printed: str) -> str | None:
    """The first quoted line not found (in order) among the printed lines, or None."""
    lines = [line.rstrip() for line in printed.splitlines()]
    at = 0
    for want in quoted:
        found = next((i for i in range(at, len(lines)) if lines[i] == want.rstrip()), None)
        if found is None:
            return want
        at = found + 1
    return None


def run_block(example: Example) -> str | None:
    block: Block = example.parsed
    if block.language == "console":
        for command, quoted in commands(block.text):
            program, *args = shlex.split(command)
            if program != "offline-recall":
                return f"not an offline-recall command: {command}"
            result = CliRunner().invoke(main, args)
            missing = not_in_order(quoted, result.output)
            if missing is not None:
                return f"`{command}` did not print {missing!r}; it printed:\n{result.output}"
    elif block.language == "python":
        script = Path(f"example_{example.line}.py")
        script.write_text(block.text, encoding="utf-8")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            runpy.run_path(str(script), run_name="__main__")
        example.namespace[_PRINTED] = printed.getvalue()
    elif block.language == "json":
        ItemRecord.model_validate_json(block.text)
    else:
        return f"no check for {block.language} blocks"
    return None


def check_output(example: Example) -> str | None:
    printed = example.namespace.pop(_PRINTED, None)
    if printed is None:
        return "an output block must follow the python block that prints it"
    missing = not_in_order(example.parsed.text.splitlines(), printed)
    if missing is not None:
        return f"the block above did not print {missing!r}; it printed:\n{printed}"
    return None


def examples(page: Path, tiers: tuple[str, ...]) -> list[Example]:
    return list(Sybil([CheckedBlocks(tiers)]).parse(page))


def in_ci() -> bool:
    """CI sets CI=true; its checkout has ../shared beside it."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def need_rose() -> None:
    """Some blocks read RoSE's split from ../shared/data. A checkout without it skips them,
    saying so; in CI, where it must be there, its absence fails the test."""
    if ROSE.is_file():
        return
    reason = f"labelled data not found at {ROSE}"
    if in_ci():
        pytest.fail(f"{reason}: CI's checkout must have ../shared/data beside it")
    pytest.skip(reason)


def run_page(page: Path, tiers: tuple[str, ...], folder: Path) -> int:
    """Runs the page's blocks of `tiers` in `folder`, which holds what they name: the example
    dataset at its path in a checkout and, when a block reads it, RoSE's ACU recall split."""
    found = examples(page, tiers)
    if any(ROSE.name in example.parsed.text for example in found):
        need_rose()
        shutil.copy(ROSE, folder / ROSE.name)
    (folder / "offline_recall").symlink_to(ROOT / "offline_recall")
    for example in found:
        example.evaluate()
    return len(found)


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_examples_on_the_fake_engine(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run_page(page, ("fake",), tmp_path)


def test_the_readme_and_the_docs_have_runnable_examples() -> None:
    fast = {page_id(p): len(examples(p, ("fake",))) for p in PAGES}
    assert fast["README.md"] >= 1, fast
    assert sum(fast.values()) >= 15, fast
    assert len(examples(README, ("model",))) >= 1


def test_an_output_block_is_checked_against_what_its_example_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- check: fake -->\n```python\nprint('one')\nprint('two')\n```\n\n"
        "<!-- check: output -->\n```text\ntwo\none\n```\n",
        encoding="utf-8",
    )
    found = examples(page, ("fake",))
    assert [type(e.parsed) for e in found] == [Block, Block]
    found[0].evaluate()
    with pytest.raises(AssertionError, match="did not print 'one'"):
        found[1].evaluate()


@pytest.mark.model
@pytest.mark.parametrize("page", [p for p in PAGES if examples(p, ("model",))], ids=page_id)
def test_the_examples_on_the_embedded_model(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_page(page, ("fake", "model"), tmp_path) >= 1
