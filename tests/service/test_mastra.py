"""Mastra's own client against `offline-recall serve`: `@mastra/core` from npm (pinned in
tests/mastra/), the scorers of `offline-recall-mastra` installed as docs/mastra.md says, and
Mastra's `runEvals` under Node 22, on the fake engine. Each score and reason is the one
`offline-recall score --backend fake` writes for the same row, byte for byte.

The pinned packages are installed once (`npm ci`) into a cache folder named by their lock's
digest ($OFFLINE_RECALL_NODE_CACHE, else the user's cache folder), and reused by later runs.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from ..conftest import run_cli
from ..project.test_readme import commands, in_ci, not_in_order
from ..serving import ALL_SCORERS, serving

pytestmark = pytest.mark.mastra

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "tests" / "mastra"
PAGE = ROOT / "docs" / "mastra.md"
LIMIT = 256 * 1024
"""The request bound of the services under test, in bytes."""

_BLOCK = re.compile(r"<!-- check: (\w+) -->\n```(\w+)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    tier: str
    language: str
    text: str


def page_blocks() -> list[Block]:
    """The blocks of docs/mastra.md that this tier runs (`mastra`) or checks (`output`)."""
    text = PAGE.read_text(encoding="utf-8")
    found = [Block(*m.groups()) for m in _BLOCK.finditer(text)]
    return [b for b in found if b.tier in ("mastra", "output")]


def file_name(block: Block) -> str:
    """A TypeScript block's file: its first line is `// NAME.ts`."""
    first = block.text.splitlines()[0]
    assert first.startswith("// ") and first.endswith(".ts"), first
    return first.removeprefix("// ")


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        reason = "npm is not installed: this tier runs Mastra under Node"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return npm


@pytest.fixture(scope="session")
def project() -> Iterator[Path]:
    """A Node project holding the pinned packages (`npm ci` once per lock), locked while a
    session uses it."""
    npm = _npm()
    pins = [PINNED / "package.json", PINNED / "package-lock.json"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in pins)).hexdigest()[:16]
    base = os.environ.get("OFFLINE_RECALL_NODE_CACHE") or platformdirs.user_cache_dir(
        "offline-recall-tests"
    )
    folder = Path(base) / f"mastra-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "node_modules" / ".installed").exists():
            for pin in pins:
                shutil.copyfile(pin, folder / pin.name)
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            (folder / "node_modules" / ".installed").touch()
        yield folder


def environment(project: Path, url: str | None) -> dict[str, str]:
    """Node 22 of the pinned `node` package and this environment's `offline-recall` first on
    the PATH, and the service's address for the scorers."""
    path = [str(project / "node_modules" / "node" / "bin"), str(Path(sys.executable).parent)]
    env = {**os.environ, "PATH": os.pathsep.join([*path, os.environ.get("PATH", "")])}
    env.pop("OFFLINE_RECALL_SERVE_TOKEN", None)
    if url is not None:
        env["OFFLINE_RECALL_URL"] = url
    return env


def shell(project: Path, command: str, url: str | None = None) -> str:
    """`command` run by bash in `project`, as a user types it; it must succeed."""
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=project,
        env=environment(project, url),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"`{command}` failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="session")
def installed(project: Path) -> Path:
    """The project with `offline-recall-mastra` installed by the page's own line, and the
    page's agent beside it."""
    blocks = page_blocks()
    (install,) = [
        command
        for b in blocks
        if b.language == "console"
        for command, _ in commands(b.text)
        if "npm install" in command
    ]
    shell(project, install)
    (agent,) = [b for b in blocks if b.language == "ts" and file_name(b) == "agent.ts"]
    (project / "agent.ts").write_text(agent.text, encoding="utf-8")
    return project


def test_the_page_runs_as_it_stands(installed: Path) -> None:
    """docs/mastra.md's commands and files in page order: the service started as it says
    (on a free port), the package installed, the example run, and what it prints."""
    printed: str | None = None
    with ExitStack() as stack:
        url: str | None = None
        for block in page_blocks():
            if block.tier == "output":
                assert printed is not None, "an output block follows the command that prints it"
                missing = not_in_order(block.text.splitlines(), printed)
                assert missing is None, f"did not print {missing!r}; printed:\n{printed}"
            elif block.language == "ts":
                (installed / file_name(block)).write_text(block.text, encoding="utf-8")
            else:
                assert block.language == "console", block
                for command, quoted in commands(block.text):
                    if command.startswith("offline-recall serve "):
                        url = stack.enter_context(serving(*shlex.split(command)[2:]))
                        continue
                    printed = shell(installed, command, url)
                    missing = not_in_order(quoted, printed)
                    assert missing is None, f"`{command}` did not print {missing!r}"
        assert printed is not None and url is not None


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    scorers = ",".join(ALL_SCORERS)
    limit = str(LIMIT)
    with serving("--backend", "fake", "--scorer", scorers, "--max-request-bytes", limit) as url:
        yield url


def scenarios(project: Path, mode: str, url: str, env: dict[str, str] | None = None) -> list[Any]:
    """tests/mastra/scenarios.ts MODE run under Node 22 against the service at `url`."""
    shutil.copyfile(PINNED / "scenarios.ts", project / "scenarios.ts")
    out = project / f"{mode}.jsonl"
    done = subprocess.run(
        ["node", "scenarios.ts", mode, str(out)],
        cwd=project,
        env={**environment(project, url), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def scored_by_cli(runs: list[dict[str, Any]], folder: Path) -> list[dict[str, Any]]:
    """Each run as sent, scored by `offline-recall score --backend fake` as a row of a JSON
    Lines file: its results by scorer id."""
    rows = folder / "rows.jsonl"
    sent = [{k: v for k, v in run["sent"].items() if k != "scale"} for run in runs]
    rows.write_text("".join(json.dumps(r) + "\n" for r in sent), encoding="utf-8")
    out = folder / "results.jsonl"
    scorers = ",".join(ALL_SCORERS)
    run_cli("score", str(rows), "--backend", "fake", "--scorer", scorers, "--out", str(out))
    return [json.loads(line)["results"] for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def ran(installed: Path, service: str) -> list[Any]:
    """What tests/mastra/scenarios.ts wrote of its runs."""
    return scenarios(installed, "runs", service)


def test_run_evals_scores_as_the_command_line_does(ran: list[Any], tmp_path: Path) -> None:
    runs = [line for line in ran if "sent" in line]
    expected = scored_by_cli(runs, tmp_path)
    for run, results in zip(runs, expected, strict=True):
        written = results[run["scorer"]]
        assert run["result"] == written, run["case"]
        assert run["score"] == written["score"], run["case"]
        assert run["reason"].encode() == written["reason"].encode(), run["case"]
    cases = {(run["case"], run["scorer"]): run for run in runs}
    assert len(cases) == len(runs) == 3 * 4 + 4 + 1 + 32  # none lost, none twice

    # agent-shaped runs: the extractor's chunks, from the agent's tool; plain runs: the static
    # context; the extractor alone: the extractor's, whatever the run's shape
    tea = ["Green tea contains antioxidants that reduce inflammation."]
    assert cases["agent 0", "context-recall-scorer"]["sent"]["context"][:1] == tea
    for sid in ALL_SCORERS:
        assert cases["plain", sid]["sent"]["context"] == [
            "Green tea is a drink made from leaves.",
            "Chlorophyll makes leaves green.",
        ]
    alone = cases["extractor alone", "context-recall-scorer"]["sent"]["context"]
    assert alone == ["What is green tea? Green tea is a drink."]

    # no ground truth: 0, as in Mastra
    missing = cases["agent 2", "context-recall-scorer"]
    assert (missing["score"], missing["result"]["status"]) == (0, "no_ground_truth")

    # 32 at once: each its own run
    for n in range(32):
        reason = cases[f"concurrent {n}", "context-recall-scorer"]["reason"]
        assert f"Item {n} was built in {1800 + n}." in reason, n


def test_a_refused_run_says_why(ran: list[Any]) -> None:
    errors = {line["case"]: line["error"] for line in ran if "error" in line}
    assert "refused the run (413)" in errors["over the bound"]
    assert "refused the run (413)" in errors["runEvals over the bound"]  # runEvals stops
    assert "(400)" in errors["another scale"] and "--scale 10" in errors["another scale"]
    assert "does not answer at http://127.0.0.1:9" in errors["no service"]
    assert "leave `model` out" in errors["a model"]
    assert "needs `context` (a list of strings) or `contextExtractor`" in errors["no context"]
    assert "`context` is an empty list" in errors["an empty context"]


def test_the_scorers_send_the_environments_token(installed: Path) -> None:
    token = {"OFFLINE_RECALL_SERVE_TOKEN": "s3cret"}
    with serving("--backend", "fake", env=token) as url:
        lines = scenarios(installed, "token", url, env=token)
    found = {line["case"]: line for line in lines}
    assert found["the environment's token"]["score"] == 1
    assert "refused the run (401)" in found["a wrong token"]["error"]
