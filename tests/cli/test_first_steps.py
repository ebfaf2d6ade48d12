"""What a new user tripped on, round 6 (issue 55): an empty retrieval scored as one, a missing
engine said once, a plugin's table row, counts in one vocabulary, and time left on a slow
judge."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from offline_recall import Status
from offline_recall.cli import main, progress
from offline_recall.cli.progress import RunBar
from offline_recall.runs.results import read_results

from ..conftest import EXAMPLE, RECALL
from ..project.test_readme import commands
from ..scorer.test_plugins import LENGTH, installed, length_rows  # noqa: F401 (a fixture)

PARIS = "Paris is in France."
ROOT = Path(__file__).resolve().parents[2]
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
JUDGED = "verdicts judged"
"""The stage the claims scorers tell their chunk checks under."""


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _example() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines()]


def _score(data: Path, *args: str) -> Result:
    out = data.with_name("out.jsonl")
    return CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--out", str(out), "--no-cache", *args]
    )


# (9) A retriever that found nothing: every row's context is an empty list.


def test_a_file_whose_every_context_is_empty_scores_each_row_no_context(tmp_path: Path) -> None:
    rows = [
        {"id": f"q{i}", "input": "Where?", "ground_truth": PARIS, "context": []} for i in range(3)
    ]
    data = _write(tmp_path / "empty.jsonl", rows)
    result = _score(data)
    assert result.exit_code == 0, result.output
    assert "--map context" not in result.output
    records = read_results(data.with_name("out.jsonl"))
    assert [r.result(RECALL).status for r in records] == [Status.NO_CONTEXT] * 3


def test_a_file_without_any_context_field_is_still_refused_naming_map(tmp_path: Path) -> None:
    rows = [{"id": "q0", "input": "Where?", "ground_truth": PARIS, "chunks": None}]
    data = _write(tmp_path / "none.jsonl", rows)
    result = _score(data)
    assert result.exit_code == 1
    assert "--map context=" in result.output


# (8) An engine that is not installed: the loading line is said once, then the error.


def test_a_missing_vllm_says_the_loading_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # importing it fails, as when not installed
    rows = [{"input": "Where?", "ground_truth": PARIS, "context": [PARIS]}]
    result = _score(_write(tmp_path / "one.jsonl", rows), "--backend", "vllm")
    assert result.exit_code == 1
    assert "make setup-vllm" in result.output
    loading = [line for line in result.output.splitlines() if "loading the model" in line]
    assert len(loading) == 1, result.output


# (7) A plugin that asks no model, in the items table: its name, and no verdicts to count.


@pytest.mark.usefixtures("installed")
def test_a_rule_plugin_in_the_items_table_shows_its_name_and_no_verdict_count(
    tmp_path: Path,
) -> None:
    data = length_rows(tmp_path / "answers.jsonl")
    result = CliRunner().invoke(
        main, ["score", str(data), "--scorer", LENGTH, "--backend", "fake", "--format", "table"]
    )
    assert result.exit_code == 0, result.output
    items = result.output.split("Items", 1)[1].split("└", 1)[0]
    assert items.count("│ ok ") == 3 and items.count("Answer") == 3, items
    assert "│ score " not in items and "0/0" not in result.output, items


# (3) A slow judge: the time left is estimated from the first verdicts, before any row commits.


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


@pytest.mark.parametrize(("rows", "left"), [(14, "about 5 min left"), (40, "about 13 min left")])
def test_the_time_left_is_estimated_from_the_first_verdicts(rows: int, left: str) -> None:
    """A first window (14 rows, or 16 of 40): claims extracted in 10 s, then 4 of its 32 chunk
    checks in 40 s, 10 s each: 280 s left in the window, whose rows take 330 s in all; with 40
    rows, 24 more at that pace (495 s)."""
    console, out = _piped()
    clock = Clock()
    with RunBar(console, rows, every=10, clock=clock) as bar:
        bar.begin(rows, 0)
        bar.window(min(rows, 16))
        clock.now = 10.0
        bar.stage(RECALL, JUDGED, 0, 32)
        clock.now = 50.0
        bar.stage(RECALL, JUDGED, 4, 32)
    lines = out.getvalue().splitlines()
    assert lines[2].startswith(f"rows scored 0/{rows}, {left}, recall: chunk checks 4/32"), lines


def test_the_estimate_counts_down_while_no_verdict_comes() -> None:
    console, _ = _piped()
    clock = Clock()
    with RunBar(console, 14, every=10, clock=clock) as bar:
        bar.begin(14, 0)
        bar.window(14)
        bar.stage(RECALL, JUDGED, 0, 30)
        clock.now = 100.0
        bar.stage(RECALL, JUDGED, 10, 30)  # 10 s a check: 200 s left
        clock.now = 160.0
        assert bar.pace() == "about 2 min left"  # 140 s


def test_no_estimate_before_the_first_verdict() -> None:
    console, _ = _piped()
    with RunBar(console, 14, every=10, clock=Clock()) as bar:
        bar.begin(14, 0)
        bar.window(14)
        bar.stage(RECALL, JUDGED, 0, 32)
        assert bar.pace() == "estimating"


# (4) One vocabulary: the progress counts chunk checks, the summary claims, and says how.


def test_progress_counts_chunk_checks_and_the_summary_says_how_they_make_claims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "EVERY", 0.0)
    result = _score(_write(tmp_path / "example.jsonl", _example()))
    assert result.exit_code == 0, result.output
    assert "recall: chunk checks" in result.output and "verdicts judged" not in result.output
    said = " ".join(result.output.split())
    assert said.count("chunk checks (each claim against one chunk)") == 1, result.output
    assert "claims supported" in said


def test_a_scorer_of_chunks_keeps_its_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "EVERY", 0.0)
    data = _write(tmp_path / "example.jsonl", _example())
    result = _score(data, "--scorer", "context-precision-scorer")
    assert result.exit_code == 0, result.output
    assert "precision: chunks judged" in result.output and "chunk checks" not in result.output


# (6) `make demo` installs what the demo needs, and asks no index for a torch it has.


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )


@needs_make
def test_the_demo_installs_the_package_without_the_development_tools(tmp_path: Path) -> None:
    done = _make("-n", "demo", f"BIN={tmp_path}/bin")
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path}/bin/pip install -c constraints.txt -e .\n" in done.stdout
    assert "[dev" not in done.stdout and "serve]" not in done.stdout
    assert f"{tmp_path}/bin/offline-recall models install" in done.stdout


@needs_make
def test_the_development_set_up_still_adds_the_dev_and_serve_extras(tmp_path: Path) -> None:
    done = _make("-n", "test-fast", f"BIN={tmp_path}/bin")
    assert done.returncode == 0, done.stderr
    assert "-e .\n" in done.stdout and "-e '.[dev,serve]'" in done.stdout


CLOSED = "http://127.0.0.1:9/whl/cpu"
"""The discard port: an index that never answers (nothing listens there)."""


def _venv(tmp_path: Path, *, torch: str | None, local_wheel: bool) -> Path:
    """A virtual environment's bin folder: its python sees a torch distribution of version
    `torch` (None: none), and its pip writes each call's arguments to pip.args, answering a
    call that asks no index as pip configured with a local torch wheel (`local_wheel`) does."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    site = tmp_path / "site"
    site.mkdir()
    if torch is not None:
        info = site / f"torch-{torch}.dist-info"
        info.mkdir()
        info.joinpath("METADATA").write_text(
            f"Metadata-Version: 2.1\nName: torch\nVersion: {torch}\n"
        )
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} "$@"\n')
    pip = bin_dir / "pip"
    found = 0 if local_wheel else 1
    pip.write_text(
        f'#!/bin/sh\necho "$@" >> {tmp_path / "pip.args"}\n'
        f'case "$*" in *--no-index*) exit {found};; esac\n'
    )
    for tool in (python, pip):
        tool.chmod(0o755)
    return bin_dir


def _torch(bin_dir: Path) -> subprocess.CompletedProcess[str]:
    settings = [f"BIN={bin_dir}", f"TORCH_CPU_INDEX={CLOSED}", "TORCH_PROBE_SECONDS=5"]
    return _make("torch-cpu", *settings)


@needs_make
@pytest.mark.parametrize("version", ["2.13.0", "2.13.0+cpu"])
def test_a_torch_installed_already_is_kept_without_asking_any_index(
    tmp_path: Path, version: str
) -> None:
    done = _torch(_venv(tmp_path, torch=version, local_wheel=False))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "torch: torch==2.13.0 is installed already\n"
    assert done.stderr == "" and not (tmp_path / "pip.args").exists()


@needs_make
def test_a_local_torch_wheel_is_installed_without_waiting_on_the_cpu_index(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    done = _torch(_venv(tmp_path, torch="2.12.0", local_wheel=True))
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 5  # the probe of the index would wait 5 s
    assert "did not answer" not in done.stderr
    assert (tmp_path / "pip.args").read_text().splitlines() == [
        "install --dry-run --no-index --no-deps --quiet torch==2.13.0",
        "install torch==2.13.0",
    ]


# (1, 2) The Mastra page from a new folder: the Node Mastra needs, ES modules, every step.

MASTRA_PAGE = ROOT / "docs" / "mastra.md"
PINNED = json.loads((ROOT / "tests" / "mastra" / "package.json").read_text(encoding="utf-8"))
"""What the Mastra tier runs on (tests/mastra/package.json)."""
_MARKED = re.compile(r"<!-- check: (\w+) -->\n```(\w+)\n(.*?)^```", re.S | re.M)


def _page_runs(tiers: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """The Mastra page's marked blocks of `tiers`, in page order: (tier, language, text)."""
    text = MASTRA_PAGE.read_text(encoding="utf-8")
    return [(t, lang, body) for t, lang, body in _MARKED.findall(text) if t in tiers]


def test_the_mastra_page_starts_a_new_project_as_the_tests_pin_it() -> None:
    runs = _page_runs(("node", "mastra"))
    assert runs[0][0] == "node", "the set-up comes first"
    setup = [command for _, _, text in runs[:1] for command, _ in commands(text)]
    assert setup[:2] == ["npm init -y", "npm pkg set type=module"]
    assert PINNED["type"] == "module"
    node = next(c for c in setup if c.startswith("npm install node@"))
    assert PINNED["dependencies"]["node"].startswith(node.removeprefix("npm install node@") + ".")
    assert "npm pkg set allowScripts.node=true --json" in setup and PINNED["allowScripts"]["node"]
    mastra = next(c for c in setup if "@mastra/core@" in c)
    assert setup.index(node) < setup.index(mastra)  # npm installs Mastra on Node 22
    pins = dict(p.rsplit("@", 1) for p in mastra.removeprefix("npm install ").split())
    assert pins == {k: PINNED["dependencies"][k] for k in ("@mastra/core", "zod")}
    said = " ".join(MASTRA_PAGE.read_text(encoding="utf-8").split())
    assert "needs Node 22.13 or later" in said and "use `tsx` on an older one" not in said


@pytest.mark.mastra
def test_the_mastra_page_runs_in_a_new_folder(tmp_path: Path) -> None:
    """Every step of the page, from `npm init -y` to the printed scores, in a new folder with
    the packages of npm's registry (the Mastra tier's other tests reuse an installed copy)."""
    from ..project.test_readme import in_ci, not_in_order
    from ..service.test_mastra import _npm, shell
    from ..serving import serving

    npm = _npm()
    if subprocess.run([npm, "ping"], capture_output=True, timeout=120).returncode != 0:
        if in_ci():
            pytest.fail("npm's registry does not answer")
        pytest.skip("npm's registry does not answer: a new project cannot be installed")
    project = tmp_path / "rag-evals"
    project.mkdir()
    printed: str | None = None
    with ExitStack() as stack:
        url: str | None = None
        for tier, language, text in _page_runs(("node", "mastra", "output")):
            if tier == "output":
                assert printed is not None
                missing = not_in_order(text.splitlines(), printed)
                assert missing is None, f"did not print {missing!r}; printed:\n{printed}"
            elif language == "ts":
                name = text.splitlines()[0].removeprefix("// ")
                (project / name).write_text(text, encoding="utf-8")
            else:
                for command, quoted in commands(text):
                    if command.startswith("offline-recall serve "):
                        url = stack.enter_context(serving(*shlex.split(command)[2:]))
                        continue
                    printed = shell(project, command, url)
                    assert not_in_order(quoted, printed) is None, (command, printed)
    assert printed is not None and "context-recall-scorer" in printed
