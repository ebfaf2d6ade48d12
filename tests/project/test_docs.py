"""The documentation builds without a broken link or a page left out, and the README stays a
doorway: short, its links pointing at files that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict` fails on a warning: a link to a missing page or anchor, a page
    not in the nav, a reference that cannot be generated (mkdocs.yml)."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("score", "verify", "report", "compare", "calibrate", "models"):
        assert f'id="offline-recall-{command}"' in cli, command
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("create_context_recall_scorer", "run_evals", "score", "ItemRecord"):
        assert f'id="offline_recall.{name}"' in api, name


def test_the_readme_is_short() -> None:
    assert len(README.read_bytes()) <= 10 * 1024


def test_each_benchmark_results_page_stays_short() -> None:
    """A RESULTS page holds today's numbers; earlier rounds go to docs/history.md."""
    pages = sorted((ROOT / "benchmarks").glob("*/RESULTS.md"))
    assert len(pages) >= 3
    too_long = {p.parent.name: n for p in pages if (n := len(p.read_bytes())) > 30_000}
    assert too_long == {}


def test_the_readme_links_to_files_that_exist() -> None:
    targets = [t for t in _LINK.findall(README.read_text(encoding="utf-8")) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_P_VALUE = re.compile(r"\bp = (\d+(?:\.\d+)?)")


def test_the_text_quotes_the_p_values_its_examples_print() -> None:
    """A p-value a page's text quotes is one an example above it prints (the examples' output
    is checked when they run, tests/project/test_readme.py): the text cannot drift from it."""
    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    quoted = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        printed: set[str] = set()
        at = 0
        for block in [*_FENCE.finditer(text), None]:
            prose = text[at : len(text) if block is None else block.start()]
            for value in _P_VALUE.findall(prose):
                quoted += 1
                assert value in printed, f"{page.name}: the text says p = {value}, no example does"
            if block is not None:
                printed.update(_P_VALUE.findall(block.group()))
                at = block.end()
    assert quoted > 0  # docs/report.md quotes its comparison's
