"""Nothing heavy at the door: the import and the commands that need no model load no engine,
no data-frame or statistics library, no template engine and no HTTP client. Nor do they load
more of the package than they use: the import loads only the version and the built-in scorers'
public names (`scorer/builtins.py`, which imports nothing of the package), `--help` and
`--version` no command's module, and each public name loads its module when it is first used.

Each case runs in a fresh interpreter and reports which of the heavy modules it left in
`sys.modules`; the commands run click's `main` in that process, so what is measured is the
package, not the console script.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import offline_recall
from offline_recall.judging.profile import JudgeProfile
from offline_recall.scorer.builtins import public_names

from ..conftest import EXAMPLE, load_script

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"

HEAVY = (
    "torch",
    "transformers",
    "vllm",
    "sklearn",
    "scipy",
    "pandas",
    "pyarrow",
    "wordfreq",
    "jinja2",
    "httpx",
    "ray",
)
REPORT = f"""
import json, sys
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def heavy_after(code: str, cwd: Path, report: str = REPORT) -> tuple[set[str], str]:
    """The heavy modules loaded once `code` ran in a fresh interpreter, and what it printed
    (or what else `report` prints last, as a JSON list)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code) + report],
        cwd=cwd,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    *printed, last = done.stdout.strip().splitlines()
    return set(json.loads(last)), "\n".join(printed)


def ours_after(code: str, cwd: Path) -> tuple[set[str], str]:
    """The package's own modules loaded once `code` ran in a fresh interpreter."""
    report = "\nimport json, sys\n"
    report += "print(json.dumps(sorted(m for m in sys.modules if m.startswith('offline_recall.'))))"
    return heavy_after(code, cwd, report)


def command(*args: str) -> str:
    """Code that runs `offline-recall ARGS` in process and prints how it ended."""
    return f"""
    import click
    from offline_recall.cli import main
    try:
        print("exit", main({list(args)!r}, standalone_mode=False))
    except click.ClickException as e:
        print("refused:", e.format_message())
    """


def test_importing_the_package_loads_nothing_heavy(tmp_path: Path) -> None:
    loaded, _ = heavy_after("import offline_recall", tmp_path)
    assert loaded == set()


def test_importing_the_package_loads_only_its_version_and_the_built_in_scorers_names(
    tmp_path: Path,
) -> None:
    loaded, _ = ours_after("import offline_recall", tmp_path)
    assert loaded == {
        "offline_recall._version",
        "offline_recall.imported",
        "offline_recall.scorer",
        "offline_recall.scorer.builtins",
    }


def test_help_and_version_load_no_command(tmp_path: Path) -> None:
    for args, shown in ((("--help",), "Usage:"), (("--version",), "offline-recall, version")):
        loaded, printed = ours_after(command(*args), tmp_path)
        assert shown in printed and "exit 0" in printed
        assert {m for m in loaded if m.startswith("offline_recall.cli.")} == set(), args


def test_each_public_name_resolves_with_a_docstring_and_a_reference_entry() -> None:
    # The reference as the site shows it: the built-in scorers' entries are written as it builds.
    api = load_script("builtin_scorers").api_page(API.read_text(encoding="utf-8"))
    entries = {path.rpartition(".")[2]: path for path in re.findall(r"^::: ([\w.]+)$", api, re.M)}
    assert sorted(dir(offline_recall)) == sorted(offline_recall.__all__)
    for name in offline_recall.__all__:
        value = getattr(offline_recall, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"
        assert name in api, f"docs/api.md does not name {name}"
        if name != "__version__":
            assert name in entries, f"docs/api.md has no ::: entry for {name}"
            module, _, attribute = entries[name].rpartition(".")
            assert getattr(importlib.import_module(module), attribute) is value, name


def test_the_tree_imports_only_public_names_from_the_package() -> None:
    # A name left out of `__all__` is imported from its own module, so that the public API
    # stays what `__all__` lists.
    root = API.parents[1]
    imported = re.compile(r"from offline_recall import (\([^)]*\)|[\w ,]+)")
    found: dict[str, set[str]] = {}
    for folder in ("tests", "benchmarks", "scripts"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "offline_recall":
                    found.setdefault(str(path.relative_to(root)), set()).update(
                        alias.name for alias in node.names
                    )
    for path in [root / "README.md", *(root / "docs").rglob("*.md")]:
        for names in imported.findall(path.read_text(encoding="utf-8")):
            words = re.findall(r"(\w+)(?:\s+as\s+\w+)?", names)
            found.setdefault(str(path.relative_to(root)), set()).update(words)
    strays = {where: sorted(names - set(offline_recall.__all__)) for where, names in found.items()}
    assert {where: names for where, names in strays.items() if names} == {}


def test_help_and_version_load_nothing_heavy(tmp_path: Path) -> None:
    loaded, printed = heavy_after(command("--help"), tmp_path)
    assert loaded == set() and "Usage:" in printed and "score" in printed
    loaded, printed = heavy_after(command("--version"), tmp_path)
    assert loaded == set() and "offline-recall, version" in printed


def test_a_refused_input_loads_nothing_heavy(tmp_path: Path) -> None:
    loaded, printed = heavy_after(command("score", "missing.jsonl"), tmp_path)
    assert loaded == set() and "refused:" in printed and "does not exist" in printed
    (tmp_path / "empty.jsonl").write_text("")
    loaded, printed = heavy_after(command("score", "empty.jsonl", "--backend", "fake"), tmp_path)
    assert loaded == set() and "refused:" in printed and "no rows" in printed


def test_scoring_a_row_on_the_fake_engine_loads_nothing_heavy(tmp_path: Path) -> None:
    (tmp_path / "one.jsonl").write_text(EXAMPLE.read_text().splitlines()[0] + "\n")
    args = ("score", "one.jsonl", "--backend", "fake", "--out", "results.jsonl")
    loaded, printed = heavy_after(command(*args), tmp_path)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert "exit" in printed and len(lines) == 1
    assert json.loads(lines[0])["results"]["context-recall-scorer"]["status"] == "ok"
    assert loaded == set()


def test_applying_a_fitted_profile_needs_no_scikit_learn(tmp_path: Path) -> None:
    # The shipped rule weighs the text's signals (wordfreq rates rare words) and the model's
    # P(yes) with its stored coefficients: no fitting library is involved.
    code = f"""
    from pathlib import Path
    from offline_recall.judging.profile import load_profile
    from offline_recall.judging.signals import lexical_signals
    profile = load_profile(Path({str(EXAMPLE.parents[2] / "models")!r})
                           / "smollm2-135m-instruct.v5.judge.json")
    assert not profile.is_plain
    values = lexical_signals("The Eiffel Tower is in Paris.", "The tower is in Paris.")
    values["model"] = 0.8
    print(profile.probability(values))
    """
    loaded, printed = heavy_after(code, tmp_path)
    assert 0.0 < float(printed) < 1.0
    assert loaded <= {"wordfreq"}


def test_a_profile_applies_its_coefficients_to_the_same_floats() -> None:
    # Verdict probabilities are part of a run's results, which resume and compare byte for
    # byte: the arithmetic that applies a profile must not change, not even in the last bit.
    # Built unchecked: its weights predate the rule that signs follow meaning, and it is the
    # arithmetic that is pinned here.
    profile = JudgeProfile.model_construct(
        model_fingerprint="f",
        prompt_version="v",
        signals=("model", "overlap", "weighted_overlap", "missing", "polarity"),
        means=(0.4, 0.55, 0.5, 1.5, 0.0),
        scales=(2.3, 0.21, 0.27, 1.3, 1.0),
        weights=(0.83, 1.7, -0.45, -0.62, -4.0),
        bias=-0.31,
        threshold=0.5,
    )
    rng = random.Random(7)
    values = [
        {
            "model": rng.random(),
            "overlap": rng.random(),
            "weighted_overlap": rng.random(),
            "missing": float(rng.randrange(5)),
            "polarity": float(rng.random() < 0.1),
        }
        for _ in range(2000)
    ]
    edges = {"overlap": 1.0, "weighted_overlap": 1.0, "missing": 0.0, "polarity": 0.0}
    values += [{"model": m, **edges} for m in (0.0, 1.0)]
    found = [profile.probability(v) for v in values]
    assert [p.hex() for p in found[:3]] == [
        "0x1.e626ce4d2dae6p-6",
        "0x1.184002d182b03p-8",
        "0x1.b73f013077aa4p-13",
    ]
    assert found[-2:] == [0.12841610332449988, 0.9996829574668307]
    digest = hashlib.sha256(",".join(p.hex() for p in found).encode()).hexdigest()
    assert digest == "76ab9c6abac8ffc854634abecc0e0c3b6e1b3a4c1dce0dbc03e0dfcc4717dae3"


PUBLIC = {
    "DEFAULT_MODEL", "ClaimCache", "Comparison", "ConfigurationError", "DatasetError",
    "DatasetScores", "Engine", "EvalResult", "FakeEngine", "ItemRecord", "ItemResult",
    "MissingExtraError", "ModelError", "OfflineRecallError", "RayOptions", "Status",
    "__version__", "compare_runs", "create_engine", "load_manifest", "model_dir",
    "read_results", "run_evals", "score",
}  # fmt: skip
"""The public names besides the built-in scorers', which their registry entries declare."""


def test_the_public_api_is_the_users_and_the_scorer_kit_is_its_own() -> None:
    # What a user calls is `offline_recall`; what a scorer is made of is the kit.
    scorers = public_names()
    assert set(offline_recall.__all__) == PUBLIC | set(scorers)
    assert len(offline_recall.__all__) == len(PUBLIC) + len(scorers)
    assert len(PUBLIC) <= 30
    for name, module in scorers.items():
        assert name in importlib.import_module(module).__all__, (name, module)
    import offline_recall.scorer as kit

    assert sorted(dir(kit)) == sorted(kit.__all__)
    for name in kit.__all__:
        assert getattr(kit, name) is not None, name


def test_plugins_import_only_the_kit() -> None:
    # The Write a scorer page's code and the plugin tests reach the framework through the kit
    # alone, as a third-party package does.
    root = API.parents[1]
    sources = {
        "docs/write-a-scorer.md": (root / "docs" / "write-a-scorer.md").read_text("utf-8"),
        "tests/scorer/test_plugins.py": (root / "tests" / "scorer" / "test_plugins.py").read_text(
            "utf-8"
        ),
    }
    allowed = {"offline_recall", "offline_recall.scorer", "offline_recall.cli"}
    allowed |= {"offline_recall.errors", "offline_recall.engines"}
    for where, text in sources.items():
        modules = set(re.findall(r"^\s*from (offline_recall[\w.]*) import", text, re.M))
        assert "offline_recall.scorer" in modules, where
        assert modules <= allowed, (where, sorted(modules - allowed))
