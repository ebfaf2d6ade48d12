"""The package's layers import only the layers below them: reading data knows no scorer."""

from __future__ import annotations

import ast
from pathlib import Path

import offline_recall

PACKAGE = Path(offline_recall.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports, relative imports resolved."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if path.name == "__init__.py":
        parts = parts[:-1]
    module = ".".join(parts)
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
    """For each module of `folder` and its subpackages, the modules of offline_recall it
    imports."""
    return {
        str(path.relative_to(PACKAGE / folder)): {
            m for m in imported_modules(path) if m.startswith("offline_recall.")
        }
        for path in sorted((PACKAGE / folder).rglob("*.py"))
    }


def upward(folder: str, above: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules of `folder` importing a package of `above`, and what they import of it."""
    assert (PACKAGE / folder).is_dir(), f"no folder {folder}"
    assert all((PACKAGE / name).is_dir() for name in above), above
    loops = {
        name: sorted(m for m in imports if m.split(".")[1] in above)
        for name, imports in package_imports(folder).items()
    }
    return {name: found for name, found in loops.items() if found}


def test_relative_imports_are_resolved_to_the_modules_they_name() -> None:
    found = imported_modules(PACKAGE / "runs" / "results.py")
    assert {
        "offline_recall.data.dataset",
        "offline_recall.scorer.registry",
        "offline_recall.frozen",
    } <= found


def test_data_imports_no_scorer_run_report_or_engine() -> None:
    above = (
        "scorer",
        "metrics",
        "runs",
        "report",
        "cli",
        "engines",
        "judging",
    )
    assert upward("data", above) == {}


def test_engines_judging_the_kit_and_the_metrics_know_no_run() -> None:
    above = ("runs", "report", "cli")
    folders = ("engines", "judging", "scorer", "metrics")
    assert {f: upward(f, above) for f in folders} == {f: {} for f in folders}


def test_no_module_of_the_kit_imports_a_metric() -> None:
    # The family bases are the kit's own: its face names no module of the metrics either.
    assert upward("scorer", ("metrics",)) == {}
    face = (PACKAGE / "scorer" / "__init__.py").read_text(encoding="utf-8")
    assert '"offline_recall.metrics' not in face
    assert '"ClaimScorer": "offline_recall.scorer.claims"' in face


def test_engines_and_judging_know_no_scorer() -> None:
    folders = ("engines", "judging")
    assert {f: upward(f, ("scorer", "metrics")) for f in folders} == {f: {} for f in folders}


def test_runs_know_no_report_or_command() -> None:
    assert upward("runs", ("report", "cli")) == {}


def test_the_service_knows_no_report_or_command_and_no_run_package_knows_it() -> None:
    assert upward("service", ("report", "cli")) == {}
    below = (
        "data",
        "engines",
        "judging",
        "scorer",
        "metrics",
        "runs",
        "report",
    )
    assert {f: upward(f, ("service",)) for f in below} == {f: {} for f in below}


def test_the_record_base_imports_nothing_of_the_package() -> None:
    assert package_imports(".")["frozen.py"] == set()
