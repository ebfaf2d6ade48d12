"""What lists the built-in scorers outside their entries (offline_recall/scorer/builtins.py),
written from those entries, so that a new scorer's entry is the only list it is added to.

Files shipped as they are hold their lists between marker comments, written here:

- the Mastra module's scorer table and `create*Scorer` exports
  (offline_recall/integrations/mastra/index.js, index.d.ts);
- the imports that show type checkers each scorer's public names (offline_recall/__init__.py,
  whose `__all__` and lazy imports read the entries themselves).

    python scripts/builtin_scorers.py            # rewrite them
    python scripts/builtin_scorers.py --check    # fail, naming each file that differs

tests/project/test_builtin_scorers.py fails while a file differs from what this writes.

The documentation's lists are written as the site builds, by this module's mkdocs hooks
(mkdocs.yml, `hooks:`): the Scorers section of the nav (each scorer's page,
docs/scorers/<id less "-scorer">.md, in the entries' order) and the API reference's scorer
entries (docs/api.md, at its `API_MARKER` line).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from offline_recall.integrations import MASTRA_MODULE  # noqa: E402
from offline_recall.scorer.builtins import (  # noqa: E402
    BUILTINS,
    MastraExport,
    creator_name,
    public_names,
)
from offline_recall.scorer.registry import scorer_kind  # noqa: E402

COMMAND = "python scripts/builtin_scorers.py"
LINE_LENGTH = 100
"""The longest line ruff formats the package to (pyproject.toml)."""


def offered() -> list[tuple[str, MastraExport]]:
    """The built-in scorers the Mastra module offers: each id and its export."""
    return [(sid, found.mastra) for sid, found in BUILTINS.items() if found.mastra is not None]


def js_table() -> str:
    """The Mastra module's table of the built-in scorers it offers, by id."""
    rows = []
    for scorer_id, mastra in offered():
        kind = scorer_kind(scorer_id)
        rows.append(
            f"  {json.dumps(scorer_id)}: {{\n"
            f"    metric: {json.dumps(kind.options_type.metric)},\n"
            f"    name: {json.dumps(kind.name)},\n"
            f"    description: {json.dumps(mastra.description + ' (offline-recall)')},\n"
            "  },"
        )
    return "const SCORERS = {\n" + "\n".join(rows) + "\n};"


def js_exports() -> str:
    """The Mastra module's `create*Scorer` functions, one per built-in scorer it offers."""
    return "\n\n".join(
        f"/** Mastra's `{mastra.reference or mastra.function}`, scored by offline-recall. */\n"
        f"export const {mastra.function} = (config) =>\n"
        f"  createOfflineRecallScorer({json.dumps(scorer_id)}, config);"
        for scorer_id, mastra in offered()
    )


def ts_exports() -> str:
    """The types of the Mastra module's `create*Scorer` functions."""
    return "\n\n".join(
        f"export declare function {mastra.function}(\n"
        "  config: OfflineRecallScorerConfig,\n"
        f"): OfflineRecallScorer<{json.dumps(scorer_id)}>;"
        for scorer_id, mastra in offered()
    )


def _isort_key(name: str) -> tuple[int, str]:
    """Where ruff's import sorting puts a name: constants, then classes, then the rest."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def type_imports() -> str:
    """The built-in scorers' public names imported for type checkers, each re-exported with
    `as` (`__all__` adds them at run time, which a type checker does not read), as ruff
    formats and sorts them."""
    names: dict[str, list[str]] = {}
    for name, module in public_names().items():
        names.setdefault(module.removeprefix("offline_recall"), []).append(name)
    lines = []
    for module in sorted(names):
        for name in sorted(names[module], key=_isort_key):
            line = f"    from {module} import {name} as {name}"
            if len(line) > LINE_LENGTH:
                line = f"    from {module} import (\n        {name} as {name},\n    )"
            lines.append(line)
    return "\n".join(lines)


Part = tuple[str, Callable[[], str]]

JS = ("// ", "")
TYPE_CHECKING_BLOCK = ("    # ", "")

FILES: dict[Path, tuple[tuple[str, str], tuple[Part, ...]]] = {
    MASTRA_MODULE / "index.js": (JS, (("scorer table", js_table), ("exports", js_exports))),
    MASTRA_MODULE / "index.d.ts": (JS, (("exports", ts_exports),)),
    ROOT / "offline_recall" / "__init__.py": (TYPE_CHECKING_BLOCK, (("imports", type_imports),)),
}
"""Each file with generated parts, its comment's opening and closing, and its parts."""


def markers(comment: tuple[str, str], part: str) -> tuple[str, str]:
    """The lines that open and close a generated part."""
    opening, closing = comment
    return (
        f"{opening}generated by {COMMAND}, do not edit: {part}{closing}",
        f"{opening}end of generated {part}{closing}",
    )


def rewritten(path: Path) -> str:
    """The text of `path` with each generated part written anew."""
    comment, parts = FILES[path]
    lines = path.read_text(encoding="utf-8").split("\n")
    for part, written in parts:
        begin, end = markers(comment, part)
        if lines.count(begin) != 1 or lines.count(end) != 1:
            raise SystemExit(f"{path.relative_to(ROOT)} needs one line {begin!r} and one {end!r}")
        first, last = lines.index(begin), lines.index(end)
        lines[first + 1 : last] = written().split("\n")
    return "\n".join(lines)


def differing() -> list[Path]:
    """The files whose generated parts are not what the entries give."""
    return [path for path in FILES if rewritten(path) != path.read_text(encoding="utf-8")]


# The documentation, written as the site builds (mkdocs hooks) -------------------------------

API_MARKER = "<!-- each built-in scorer's entries, from its registry entry -->"
"""The line of docs/api.md that the built-in scorers' entries take the place of."""

NAV_SECTION = "Scorers"
"""The nav section (mkdocs.yml) that lists the built-in scorers' pages; mkdocs.yml gives it
the folder of those pages, `scorers/`."""


def scorer_page(scorer_id: str) -> str:
    """A built-in scorer's page, under docs/: "scorers/context-recall.md"."""
    return f"scorers/{scorer_id.removesuffix('-scorer')}.md"


def title(scorer_id: str) -> str:
    """A built-in scorer's page title in the nav: "Context recall"."""
    return scorer_id.removesuffix("-scorer").replace("-", " ").capitalize()


def scorer_pages() -> list[dict[str, str]]:
    """The nav's Scorers section: each built-in scorer's page, in the entries' order."""
    return [{title(scorer_id): scorer_page(scorer_id)} for scorer_id in BUILTINS]


def api_entries() -> str:
    """The API reference's entries for the built-in scorers' public names: each scorer's
    `create_*` function, then its entry's exports."""
    return "\n\n".join(
        f"::: offline_recall.{name}"
        for scorer_id, found in BUILTINS.items()
        for name in (creator_name(scorer_id), *found.exports)
    )


def api_page(markdown: str) -> str:
    """docs/api.md as the site shows it: its `API_MARKER` line replaced by the entries."""
    lines = markdown.split("\n")
    if lines.count(API_MARKER) != 1:
        raise ValueError(f"docs/api.md needs one line {API_MARKER!r}")
    at = lines.index(API_MARKER)
    lines[at : at + 1] = api_entries().split("\n")
    return "\n".join(lines)


def on_config(config: Any) -> Any:
    """mkdocs hook: the nav's Scorers section lists each built-in scorer's page."""
    for item in config.nav or []:
        if isinstance(item, dict) and item.get(NAV_SECTION) == "scorers/":
            item[NAV_SECTION] = scorer_pages()
            return config
    raise ValueError(f"mkdocs.yml's nav needs a section `- {NAV_SECTION}: scorers/`")


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """mkdocs hook: the API reference holds each built-in scorer's entries."""
    return api_page(markdown) if page.file.src_uri == "api.md" else markdown


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        stale = differing()
        for path in stale:
            print(f"{path.relative_to(ROOT)} is not what the registry gives: run {COMMAND}")
        sys.exit(1 if stale else 0)
    if sys.argv[1:]:
        sys.exit(f"usage: {COMMAND} [--check]")
    for path in differing():
        path.write_text(rewritten(path), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
