"""The package's layers import only the layers below them: reading data knows no scorer."""

from __future__ import annotations

import ast
from pathlib import Path

import offline_recall

PACKAGE = Path(offline_recall.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports, relative imports resolved."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found |= {f"{name}.{alias.name}" for alias in node.names}
    return found


def package_imports(folder: str) -> dict[str, set[str]]:
    """For each module of `folder`, the modules of offline_recall it imports."""
    return {
        path.name: {m for m in imported_modules(path) if m.startswith("offline_recall.")}
        for path in sorted((PACKAGE / folder).glob("*.py"))
    }


def test_relative_imports_are_resolved_to_the_modules_they_name() -> None:
    found = imported_modules(PACKAGE / "runs" / "results.py")
    assert {
        "offline_recall.data.dataset",
        "offline_recall.scorers",
        "offline_recall.frozen",
    } <= found


def test_data_imports_no_scorer_run_report_or_engine() -> None:
    above = ("scorers", "runs", "report", "cli", "engines", "judging")
    loops = {
        name: sorted(m for m in imports if m.split(".")[1] in above)
        for name, imports in package_imports("data").items()
    }
    assert {name: found for name, found in loops.items() if found} == {}


def test_the_record_base_imports_nothing_of_the_package() -> None:
    assert package_imports(".")["frozen.py"] == set()
