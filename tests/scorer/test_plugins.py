"""Scorer plugins: a package registers a scorer through the `offline_recall.scorers` entry-point
group and gets every command a built-in scorer gets; a broken plugin is skipped in one line.

The plugins are the three docs/write-a-scorer.md shows, built from that page's code blocks: one
that asks no model, one that reads the context, and one that reads none (scoring files without
a context field). The fast tests make them installed distributions by a `.dist-info` folder on
`sys.path` (what pip writes) and type-check them with mypy --strict; the `install` test
installs them with pip into a fresh virtual environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import FakeEngine, run_evals
from offline_recall.cli import main
from offline_recall.errors import ConfigurationError
from offline_recall.scorer import SCORERS, ContextOptions, create_scorer, scorer_kind

GROUP = "offline_recall.scorers"
"""The entry-point group plugins register their scorers under."""
RECALL = "context-recall-scorer"

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "write-a-scorer.md"
PLUGIN = "question-coverage-scorer"
SCORER = "QuestionCoverageScorer"
"""The plugin's scorer class, its entry point's object."""
PLUGIN_FOLDER = "question-coverage/"
"""Where the page puts each example plugin's files."""
FOCUS = "answer-focus-scorer"
"""The example plugin that reads no context."""
FOCUS_FOLDER = "answer-focus/"
LENGTH = "answer-length-scorer"
"""The example plugin that asks no model."""
LENGTH_FOLDER = "answer-length/"
FOLDERS = (PLUGIN_FOLDER, FOCUS_FOLDER, LENGTH_FOLDER)
MODULES = ("question_coverage", "answer_focus", "answer_length")
BUILT_IN = (
    "context-recall-scorer",
    "context-precision-scorer",
    "faithfulness-scorer",
    "context-relevance-scorer",
)
_BLOCK = re.compile(r'^```\w+ title="([^"]+)"\n(.*?)^```$', re.MULTILINE | re.DOTALL)


def plugin_files(folder: str) -> dict[str, str]:
    """An example plugin's files, by path, as the docs page shows them under `folder`."""
    blocks = dict(_BLOCK.findall(PAGE.read_text(encoding="utf-8")))
    files = {k.removeprefix(folder): v for k, v in blocks.items() if k.startswith(folder)}
    assert "pyproject.toml" in files and any(k.endswith("/__init__.py") for k in files)
    return files


def test_every_file_on_the_page_belongs_to_an_example_plugin() -> None:
    blocks = dict(_BLOCK.findall(PAGE.read_text(encoding="utf-8")))
    assert [k for k in blocks if not k.startswith(FOLDERS)] == []


def write_plugin(folder: Path, example: str = PLUGIN_FOLDER) -> Path:
    for name, text in plugin_files(example).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def rows(path: Path) -> Path:
    path.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in (
                {
                    "input": "What colour is the sky?",
                    "context": ["The colour of the sky is blue.", "Grass is green."],
                },
                {"input": "Who wrote Hamlet?", "context": ["Shakespeare wrote Hamlet."]},
                {"input": "Why is the sea salty?", "context": [""]},
            )
        )
    )
    return path


def focus_rows(path: Path) -> Path:
    """Questions and answers, and no context field."""
    path.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in (
                {"input": "Who wrote Hamlet?", "output": "Shakespeare wrote Hamlet. Cats purr."},
                {"input": "What colour is the sky?", "output": "The sky is blue."},
                {"input": "Why is the sea salty?", "output": ""},
            )
        )
    )
    return path


def _dist_info(site: Path, example: str) -> None:
    """What pip writes for an installed package: a `.dist-info` folder naming its entry
    points (the package's own files are already in `site`)."""
    project = tomllib.loads(plugin_files(example)["pyproject.toml"])["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    points = project["entry-points"][GROUP]
    info.joinpath("entry_points.txt").write_text(
        f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
    )


def isolate_entry_points(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    """Scorer plugins looked for in `site` alone: the plugins a user installed into the
    environment the tests run in are none of their business (other entry points are read as
    ever)."""
    everywhere = metadata.entry_points

    def entry_points(**params: Any) -> Any:
        if params.get("group") != GROUP:
            return everywhere(**params)
        found = metadata.distributions(path=[str(site)])
        return metadata.EntryPoints(e for d in found for e in d.entry_points if e.group == GROUP)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    SCORERS.reload()


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example plugins importable and registered, as pip leaves installed packages: their
    packages and a `.dist-info` folder each naming its entry points, in a folder on `sys.path`,
    the only one plugins are looked for in (a command in a process of its own sees the
    environment's too)."""
    site = tmp_path / "site"
    for example in FOLDERS:
        write_plugin(site, example)
        _dist_info(site, example)
    monkeypatch.syspath_prepend(str(site))
    isolate_entry_points(monkeypatch, site)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(ROOT)]))
    SCORERS.reload()
    yield site
    SCORERS.reload()
    for name in [m for m in sys.modules if m.startswith(MODULES)]:
        del sys.modules[name]


USER_PLUGIN = "user-own-scorer"


@pytest.fixture
def user_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A scorer plugin the user installed into the environment the tests run in."""
    site = tmp_path / "user-site"
    site.mkdir()
    site.joinpath("user_own.py").write_text(
        "from offline_recall.metrics.recall.scorer import ContextRecallScorer\n\n\n"
        "class UserOwnScorer(ContextRecallScorer):\n"
        f"    id = {USER_PLUGIN!r}\n"
        "    name = 'User Own Scorer'\n"
    )
    info = site / "user_own-1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: user-own\nVersion: 1.0\n")
    info.joinpath("entry_points.txt").write_text(
        f"[{GROUP}]\n{USER_PLUGIN} = user_own:UserOwnScorer\n"
    )
    monkeypatch.syspath_prepend(str(site))
    SCORERS.reload()
    yield
    SCORERS.reload()
    sys.modules.pop("user_own", None)


def test_a_plugin_the_user_installed_is_found(user_plugin: None) -> None:
    assert list(SCORERS) == [*BUILT_IN, USER_PLUGIN]


def test_the_tests_find_their_own_plugins_alone(user_plugin: None, installed: Path) -> None:
    """The plugins a test installs are all it finds, whatever else the environment holds."""
    assert list(SCORERS) == [*BUILT_IN, FOCUS, LENGTH, PLUGIN]


def _cli(*args: str | Path) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_scorers_command_lists_the_built_in_scorers_and_the_plugins(installed: Path) -> None:
    shown = _cli("scorers")
    for sid in (*BUILT_IN, PLUGIN, FOCUS, LENGTH):
        assert sid in shown
    assert shown.count("built-in") == 4
    assert "question-coverage" in shown and "question, context" in shown
    assert "answer-focus" in shown and "question, output" in shown
    assert "high, medium, low, none, per chunk" in shown  # context relevance's graded verdict
    assert (
        "answer-length-scorer (answer-length): Answer Length Scorer\n"
        "  reads: output\n"
        "  verdict: a rule, asking no model\n"
    ) in shown  # as the page shows it
    assert "  reads: output\n  verdict: a rule, asking no model" in PAGE.read_text()


def length_rows(path: Path) -> Path:
    """Answers, one of them longer than the example's limit of 50 words, and no context."""
    path.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in (
                {"input": "Who wrote Hamlet?", "output": "Shakespeare wrote Hamlet."},
                {"input": "Tell me all.", "output": " ".join(["word"] * 51)},
                {"input": "Why is the sea salty?", "output": ""},
            )
        )
    )
    return path


def test_a_plugin_that_asks_no_model_scores_without_loading_one(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from offline_recall.engines import ResolvedModel

    def start(self: ResolvedModel) -> Any:
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(ResolvedModel, "start", start)
    data = length_rows(tmp_path / "answers.jsonl")
    out = tmp_path / "lengths.jsonl"
    shown = _cli("score", data, "--scorer", LENGTH, "--backend", "fake", "--out", out)
    assert "judge profile" not in shown and "loading the model" not in shown
    assert "none: a rule, asking none" in shown
    results = [json.loads(line)["results"][LENGTH] for line in out.read_text().splitlines()]
    assert [r["score"] for r in results] == [1.0, 0.0, 1.0]
    assert {r["model_fingerprint"] for r in results} == {"none"}
    assert {r["prompt_version"] for r in results} == {"none"}
    assert {r["judge_profile"] for r in results} == {None}
    assert "3 rows re-scored, 3 identical" in _cli("verify", out)


def test_a_plugin_that_asks_no_model_is_built_by_name_without_loading_it(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from offline_recall.engines import ResolvedModel

    def start(self: ResolvedModel) -> Any:
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(ResolvedModel, "start", start)
    scorer = create_scorer(scorer_kind(LENGTH), "smollm2-135m-instruct", None)
    assert scorer.run({"output": "Short."}).score == 1.0
    found = run_evals(data=[{"input": "Say it."}], scorers=[scorer], target=lambda q: "Said.")
    assert found.scores[LENGTH] == 1.0


def test_a_plugin_that_asks_no_model_goes_through_every_command(
    installed: Path, tmp_path: Path
) -> None:
    records, page = _every_command(LENGTH, length_rows(tmp_path / "d.jsonl"), tmp_path, "score")
    assert [r["results"][LENGTH]["score"] for r in records] == [1.0, 0.0, 1.0]
    assert "Answer length" in page or "Answer Length" in page


def test_the_example_plugins_pass_mypy_strict(installed: Path) -> None:
    """The page's code type-checks as a plugin author's would, against the installed package
    (the project's mypy settings: strict, with pydantic's plugin)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         *(arg for m in MODULES for arg in ("-p", m))],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(installed)},
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def _every_command(scorer: str, data: Path, folder: Path, measure: str) -> tuple[list[Any], str]:
    """`score` twice (a result file each), `verify`, `report`, `compare`, and `score` into
    Parquet and `verify` that; the first run's records and its report page."""
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    for out in (a, b):
        shown = _cli("score", data, "--scorer", scorer, "--backend", "fake", "--out", out)
        assert f"mean {measure}" in shown
    assert "3 rows re-scored, 3 identical, 0 differ" in _cli("verify", a)
    assert "wrote" in _cli("report", a, "--out", folder / "report.html")
    title = scorer_kind(scorer).name
    assert f"{title}: B against A" in _cli("compare", a, b)
    parquet = folder / "a.parquet"
    _cli("score", data, "--scorer", scorer, "--backend", "fake", "--out", parquet)
    assert "3 rows re-scored, 3 identical" in _cli("verify", parquet)
    records = [json.loads(line) for line in a.read_text().splitlines()]
    return records, (folder / "report.html").read_text()


def test_a_plugin_scores_verifies_reports_and_compares(installed: Path, tmp_path: Path) -> None:
    records, page = _every_command(PLUGIN, rows(tmp_path / "data.jsonl"), tmp_path, "coverage")
    results = [r["results"][PLUGIN] for r in records]
    assert [r["status"] for r in results] == ["ok", "ok", "no_context"]
    assert results[0]["addressed"] == [True, False] and results[0]["score"] == 0.5
    assert "Question coverage" in page


def test_a_plugin_that_reads_no_context_scores_a_file_without_one(
    installed: Path, tmp_path: Path
) -> None:
    data = focus_rows(tmp_path / "answers.jsonl")
    records, page = _every_command(FOCUS, data, tmp_path, "focus")
    assert [r["context"] for r in records] == [None, None, None]
    results = [r["results"][FOCUS] for r in records]
    assert [r["status"] for r in results] == ["ok", "ok", "no_claims"]
    assert results[0]["focused"] == [True, False]
    assert [r["score"] for r in results] == [0.5, 1.0, 0.0]
    assert "Answer focus" in page and "Cats purr." in page


def test_a_run_with_a_scorer_that_reads_the_context_still_needs_it(
    installed: Path, tmp_path: Path
) -> None:
    data = focus_rows(tmp_path / "answers.jsonl")
    result = CliRunner().invoke(
        main, ["score", str(data), "--scorer", f"{FOCUS},{PLUGIN}", "--backend", "fake"]
    )
    assert result.exit_code != 0 and "no context field for the context" in result.output
    mixed = tmp_path / "mixed.jsonl"
    lines = data.read_text().splitlines()
    context = json.dumps({**json.loads(lines[1]), "context": ["The sky is blue."]})
    mixed.write_text("\n".join([lines[0], context]) + "\n")
    out = tmp_path / "mixed-out.jsonl"
    _cli("score", mixed, "--scorer", f"{FOCUS},{PLUGIN}", "--backend", "fake", "--out", out)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    refused = records[0]["results"]  # the row without a context, recorded with its reason
    assert all("missing field 'context'" in refused[s]["error"] for s in (FOCUS, PLUGIN))
    assert records[1]["results"][FOCUS]["score"] == 1.0
    assert records[1]["results"][PLUGIN]["score"] == 1.0


def test_a_scorer_that_reads_no_context_is_built_without_options(installed: Path) -> None:
    scorer = create_scorer(scorer_kind(FOCUS), FakeEngine(), None)
    assert not scorer_kind(FOCUS).reads_context() and scorer_kind(PLUGIN).reads_context()
    assert scorer.run({"input": "Who wrote Hamlet?", "output": "Shakespeare wrote it."}).score == 1
    found = run_evals(
        data=[{"input": "Who wrote Hamlet?"}],
        scorers=[scorer],
        target=lambda question: "Shakespeare wrote Hamlet. Cats purr.",
    )
    assert found.scores[FOCUS] == 0.5
    with pytest.raises(ConfigurationError, match="needs `context`"):
        create_scorer(scorer_kind(PLUGIN), FakeEngine(), None)


def test_a_plugin_runs_in_run_evals(installed: Path) -> None:
    options = ContextOptions(context=["Shakespeare wrote Hamlet.", "Grass is green."])
    scorer = create_scorer(scorer_kind(PLUGIN), FakeEngine(), options)
    found = run_evals(
        data=[{"input": "Who wrote Hamlet?"}], scorers=[scorer], target=lambda question: ""
    )
    assert found.scores[PLUGIN] == 0.5


def test_plugins_run_on_ray(installed: Path, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    runs = {PLUGIN: rows(tmp_path / "data.jsonl"), FOCUS: focus_rows(tmp_path / "answers.jsonl")}
    shown, scores = [], []
    try:
        for scorer, data in runs.items():
            out = tmp_path / f"{scorer}.jsonl"
            shown.append(_cli(
                "score", data, "--scorer", scorer, "--backend", "fake", "--runner", "ray",
                "--workers", "1", "--out", out,
            ))  # fmt: skip
            lines = out.read_text().splitlines()
            scores.append([json.loads(line)["results"][scorer]["score"] for line in lines])
    finally:
        ray.shutdown()  # the command keeps its local Ray for the process; a test must not
    assert "mean coverage" in shown[0] and "mean focus" in shown[1]
    assert scores == [[0.5, 1.0, 0.0], [0.5, 1.0, 0.0]]


# Broken plugins -----------------------------------------------------------------------------


def _entry_points(monkeypatch: pytest.MonkeyPatch, *points: tuple[str, str]) -> None:
    found = [metadata.EntryPoint(name, value, GROUP) for name, value in points]

    def entry_points(*, group: str) -> list[metadata.EntryPoint]:
        return found if group == GROUP else []

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    SCORERS.reload()


UNFINISHED = """
from question_coverage import CoverageResult, Item, QuestionCoverageScorer, Unit, prompts
from offline_recall import Status
from offline_recall.scorer import Pipeline, ScoreResult


class Base(Pipeline[Item, Unit, CoverageResult]):
    id = "question-coverage-scorer"
    name = "Question Coverage Scorer"
    description = "The share of retrieved chunks that address the question"
    result_type = CoverageResult
    prompt_package = prompts.__name__
    prepare = QuestionCoverageScorer.prepare
    units = QuestionCoverageScorer.units
    aggregate = QuestionCoverageScorer.aggregate


class NoQuestion(Base):
    pass


class NoPrompts(QuestionCoverageScorer):
    prompt_package = None


class NoName(QuestionCoverageScorer):
    name = None


class NoPrepare(Pipeline[Item, Unit, ScoreResult]):
    id = "question-coverage-scorer"
    name = "Rule"
    description = "A rule"
    result_type = ScoreResult


class BadReads(QuestionCoverageScorer):
    reads = ("question", "contexts")


class TypedReads(QuestionCoverageScorer):
    reads = ("question", "ground_truth", "context")


class NotAResult(QuestionCoverageScorer):
    result_type = Status
"""
"""Scorer classes that each lack what every scorer, or one that asks the model, defines."""


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    write_plugin(tmp_path)
    (tmp_path / "unfinished.py").write_text(UNFINISHED)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    SCORERS.reload()
    for name in [m for m in sys.modules if m.startswith(("question_coverage", "unfinished"))]:
        del sys.modules[name]


@pytest.mark.parametrize(
    ("scorer", "why"),
    [
        (
            "NoQuestion",
            "it does not define `question()`, which a scorer that asks the model (it sets "
            "`prompt_package`) defines",
        ),
        (
            "NoPrompts",
            "it defines `question()` but sets no `prompt_package`: a scorer that asks the model "
            "names the package of its prompts",
        ),
        ("NoName", "it does not set `name` (a string): every scorer does"),
        ("NoPrepare", "it does not define `prepare()`: every scorer does"),
        ("BadReads", "its `reads` holds 'contexts'; each is one of question, ground truth"),
        ("NotAResult", "it does not set `result_type` (a ScoreResult subclass)"),
    ],
)
def test_a_plugin_lacking_a_member_is_skipped_in_one_line_naming_it(
    broken: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scorer: str,
    why: str,
) -> None:
    _entry_points(monkeypatch, (PLUGIN, f"unfinished:{scorer}"))
    assert list(SCORERS) == list(BUILT_IN)
    (warned,) = capsys.readouterr().err.strip().splitlines()
    assert warned.startswith(
        f"offline-recall: warning: scorer plugin {PLUGIN!r} from an unknown distribution "
        f"skipped: unfinished:{scorer}: {why}"
    ), warned


def test_ground_truth_may_be_spelled_with_an_underscore_in_reads(
    broken: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _entry_points(monkeypatch, (PLUGIN, "unfinished:TypedReads"))
    assert scorer_kind(PLUGIN).reading() == ("question", "ground truth", "context")
    assert "  reads: question, ground truth, context" in _cli("scorers")


def test_the_scorers_command_says_a_skipped_plugin_once(
    broken: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _entry_points(monkeypatch, (PLUGIN, "unfinished:NoQuestion"))
    shown = CliRunner().invoke(main, ["scorers"]).output  # stdout and stderr
    assert shown.count("does not define `question()`") == 1, shown
    assert f"skipped: scorer plugin {PLUGIN!r}" in shown


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        (PLUGIN, "no_such_module:Scorer", "ModuleNotFoundError: No module named 'no_such_module'"),
        (PLUGIN, "json:dumps", "json:dumps is a function, not a scorer class"),
        (PLUGIN, "offline_recall.scorer:ClaimScorer", "it does not set `id` (a string)"),
        (PLUGIN, "question_coverage:Unit", "is the class Unit, not a scorer class"),
        ("Question Coverage", f"question_coverage:{SCORER}", "its name is not a scorer id"),
        ("other-scorer", f"question_coverage:{SCORER}", "has the id 'question-coverage-scorer'"),
        ("context-recall-scorer", f"question_coverage:{SCORER}", "taken by a built-in scorer"),
    ],
)
def test_a_broken_plugin_is_one_line_and_the_built_in_scorers_stay(
    broken: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
    why: str,
) -> None:
    _entry_points(monkeypatch, (name, value))
    assert list(SCORERS) == list(BUILT_IN)
    warned = capsys.readouterr().err.strip().splitlines()
    assert len(warned) == 1 and why in warned[0], warned
    assert warned[0].startswith(f"offline-recall: warning: scorer plugin {name!r}")
    assert scorer_kind("context-recall-scorer").id == "context-recall-scorer"
    list(SCORERS)  # loaded once: no second warning
    assert capsys.readouterr().err == ""


def test_one_broken_plugin_leaves_the_others(
    broken: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _entry_points(
        monkeypatch,
        ("aaa-scorer", "no_such_module:Scorer"),
        (PLUGIN, f"question_coverage:{SCORER}"),
    )
    assert list(SCORERS) == [*BUILT_IN, PLUGIN]
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    shown = _cli("scorers")
    assert "skipped: scorer plugin 'aaa-scorer'" in shown and PLUGIN in shown


def test_an_unknown_id_names_the_plugins_too(broken: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _entry_points(monkeypatch, (PLUGIN, f"question_coverage:{SCORER}"))
    result = CliRunner().invoke(main, ["score", str(PAGE), "--scorer", "nope", "--backend", "fake"])
    assert result.exit_code != 0 and PLUGIN in result.output


def test_plugins_are_looked_for_only_when_scorers_are_listed_or_looked_up() -> None:
    code = (
        "import importlib.metadata as m, offline_recall\n"
        "from offline_recall.scorer import SCORERS, scorer_kind\n"
        "GROUP = 'offline_recall.scorers'\n"
        "calls = []\n"
        "real = m.entry_points\n"
        "m.entry_points = lambda **k: (k.get('group') == GROUP and calls.append(k)) or real(**k)\n"
        "scorer_kind('context-recall-scorer')\n"
        "print(len(calls))\n"
        "list(SCORERS)\n"
        "list(SCORERS)\n"
        "print(len(calls))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.split() == ["0", "1"]


# The plugin installed with pip ------------------------------------------------------------


def _run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


@pytest.mark.install
def test_a_plugin_installed_with_pip_scores_from_the_command_line(tmp_path: Path) -> None:
    """A fresh virtual environment, this package installed with pip (as
    tests/engines/test_install.py does), then the docs page's plugin package; `scorers` lists
    it and `score` runs it."""
    venv = tmp_path / "venv"
    _run("python3", "-m", "venv", venv)
    bin_ = venv / "bin"
    _run(bin_ / "pip", "install", "-q", "torch==2.13.0")
    _run(bin_ / "pip", "install", "-q", "-c", ROOT / "constraints.txt", ROOT)
    for folder in FOLDERS:
        _run(bin_ / "pip", "install", "-q", write_plugin(tmp_path / folder, folder))
    env = {
        "PATH": f"{bin_}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "OFFLINE_RECALL_CACHE": str(tmp_path / "cache"),
    }
    listed = _run(bin_ / "offline-recall", "scorers", env=env)
    assert PLUGIN in listed and "question-coverage" in listed
    out = tmp_path / "scored.jsonl"
    data = rows(tmp_path / "data.jsonl")
    command = ("score", data, "--scorer", PLUGIN, "--backend", "fake", "--out", out)
    assert "mean coverage" in _run(bin_ / "offline-recall", *command, env=env)
    scores = [json.loads(line)["results"][PLUGIN]["score"] for line in out.read_text().splitlines()]
    assert scores == [0.5, 1.0, 0.0]
    focus = tmp_path / "focus.jsonl"
    command = ("score", focus_rows(tmp_path / "answers.jsonl"), "--scorer", FOCUS)
    assert "mean focus" in _run(bin_ / "offline-recall", *command, "--backend", "fake",
                                "--out", focus, env=env)  # fmt: skip
    found = [json.loads(line)["results"][FOCUS]["score"] for line in focus.read_text().splitlines()]
    assert found == [0.5, 1.0, 0.0]
    lengths = tmp_path / "lengths.jsonl"
    command = ("score", length_rows(tmp_path / "long.jsonl"), "--scorer", LENGTH)
    _run(bin_ / "offline-recall", *command, "--backend", "fake", "--out", lengths, env=env)
    found = [
        json.loads(line)["results"][LENGTH]["score"] for line in lengths.read_text().splitlines()
    ]
    assert found == [1.0, 0.0, 1.0]


def test_each_built_in_scorer_is_registered_under_its_own_id() -> None:
    for scorer_id, path in SCORERS.builtin_paths.items():
        assert SCORERS[scorer_id].id == scorer_id, path
    assert (
        SCORERS[RECALL] is scorer_kind(RECALL) and SCORERS[RECALL].__name__ == "ContextRecallScorer"
    )
