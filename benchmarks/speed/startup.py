"""How long offline-recall takes to answer: the import, the commands that need no model, the
example on the fake engine, and the first committed row on a real model.

    python benchmarks/speed/startup.py [--runs 10]
    python benchmarks/speed/startup.py --only-models --transformers --vllm --server
                                       [--model-runs 10]

Every case runs in a fresh process, `--runs` times (at least 10), and the table gives the
median and the largest wall time, from the process's start to its exit (or to its first
committed row), with the load average before and after. The cheap cases:

  python         a bare interpreter (`python -c pass`), the floor under every other row
  import         `python -c "import offline_recall"`
  --help         `offline-recall --help`
  --version      `offline-recall --version`
  missing file   `offline-recall score missing.jsonl` (refused by the argument check)
  empty file     `offline-recall score empty.jsonl --backend fake` (refused by the reader)
  fake example   `offline-recall score offline_recall/examples/example.jsonl --backend fake`,
                 end to end (results, run store and manifest written)

Behind flags, because each loads the embedded model (converted into the cache beforehand, as
`make demo` does), the time to the first committed row of `score --no-cache` on the first row of
the example (a one-row input, so the first window is one row: start-up plus one row's work):

  --transformers the embedded model on the transformers engine
  --vllm         the vLLM engine in process; the engine's start (its factory, weights loaded,
                 KV cache allocated) is reported apart
  --server       the openai engine against vLLM's OpenAI server on loopback (started here as the
                 server tests start it; its own start is reported apart), with the HTTP requests
                 the server received from each run before its first scoring request, read from
                 the server's access log up to where it ended when the engine's start returned
                 (3 on a server not probed before: its model list and two probes; 1, the model
                 list, once its verdict is in the cache folder; the server listens on a new port
                 each time, so its first run here is a first contact)

The first committed row is seen by polling the run store (`<out>.run.sqlite`) every 20 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
POLL_S = 0.02
# A scoring request to an OpenAI-compatible server; anything the run asks before it is start-up.
LOG_ENV = "OFFLINE_RECALL_STARTUP_SERVER_LOG"
"""Where a worker finds the server's access log, to note its end once the engine started."""
ACCESS = re.compile(r'"(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP/[0-9.]+"')


@dataclass
class Timing:
    """One case's wall times, and what its runs reported beside them."""

    name: str
    seconds: list[float] = field(default_factory=list)
    engine_s: list[float] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)
    note: str = ""


def cli() -> list[str]:
    """The `offline-recall` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("offline-recall")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from offline_recall.cli import main; main()"]


def environment() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


def timed_exit(command: Sequence[str], cwd: Path, expect_ok: bool = True) -> float:
    """Seconds from starting `command` to its exit."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=environment(), capture_output=True)
    elapsed = time.perf_counter() - started
    if expect_ok and done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()}")
    if not expect_ok and done.returncode == 0:
        raise SystemExit(f"{' '.join(command)} was expected to refuse its input")
    return elapsed


def committed(store: Path) -> int:
    """Rows the run store holds now (0 while it does not exist or is being created)."""
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.01) as db:
            row = db.execute("SELECT count(*) FROM results").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0])


def first_row(command: Sequence[str], cwd: Path, store: Path) -> float:
    """Seconds from starting `command` to its first row committed to `store`."""
    log = (cwd / "run.log").open("wb")
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=environment(), stdout=log, stderr=log)
    seen: float | None = None
    while process.poll() is None:
        if committed(store):
            seen = time.perf_counter() - started
            break
        time.sleep(POLL_S)
    if process.wait() != 0:
        raise SystemExit(f"{' '.join(command)} failed; its output: {cwd / 'run.log'}")
    if seen is None:  # it finished between two polls
        seen = time.perf_counter() - started
    return seen


def cheap_cases() -> list[tuple[str, Callable[[Path], float]]]:
    tool = cli()
    example = str(EXAMPLE)

    def empty(cwd: Path) -> float:
        (cwd / "empty.jsonl").write_text("")
        return timed_exit([*tool, "score", "empty.jsonl", "--backend", "fake"], cwd, False)

    return [
        ("python", lambda cwd: timed_exit([sys.executable, "-c", "pass"], cwd)),
        ("import", lambda cwd: timed_exit([sys.executable, "-c", "import offline_recall"], cwd)),
        ("--help", lambda cwd: timed_exit([*tool, "--help"], cwd)),
        ("--version", lambda cwd: timed_exit([*tool, "--version"], cwd)),
        (
            "missing file",
            lambda cwd: timed_exit([*tool, "score", "missing.jsonl"], cwd, False),
        ),
        ("empty file", empty),
        (
            "fake example",
            lambda cwd: timed_exit(
                [*tool, "score", example, "--backend", "fake", "--out", "results.jsonl"], cwd
            ),
        ),
    ]


def worker(report: Path, args: list[str]) -> None:
    """Run `offline-recall` in this process, timing the engine factory of the run's backend."""
    import dataclasses

    from offline_recall.cli import main as offline_recall
    from offline_recall.engines import ENGINES

    spent: list[float] = []
    ready: list[int] = []
    server_log = Path(os.environ[LOG_ENV]) if LOG_ENV in os.environ else None
    for name, kind in list(ENGINES.items()):

        def factory(manifest: Any, options: Any, *served: Any, make: Any = kind.factory) -> Any:
            started = time.perf_counter()
            engine = make(manifest, options, *served)
            spent.append(time.perf_counter() - started)
            if server_log is not None:  # the engine is started: what it asked is in the log
                time.sleep(0.5)
                ready.append(server_log.stat().st_size)
            return engine

        ENGINES[name] = dataclasses.replace(kind, factory=factory)
    try:
        offline_recall.main(args, standalone_mode=False)
    finally:
        report.write_text(json.dumps({"engine_s": spent, "log_ready": ready}))


def first_row_case(
    name: str, backend_args: list[str], runs: int, server_log: Path | None
) -> Timing:
    timing = Timing(name)
    row = EXAMPLE.read_text().splitlines()[0]
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            cwd = Path(tmp)
            (cwd / "one.jsonl").write_text(row + "\n")
            report = cwd / "engine.json"
            args = ["score", "one.jsonl", "--no-cache", "--out", "results.jsonl", *backend_args]
            offset = server_log.stat().st_size if server_log is not None else 0
            command = [sys.executable, __file__, "--worker", str(report), "--", *args]
            if server_log is not None:
                os.environ[LOG_ENV] = str(server_log)
            timing.seconds.append(first_row(command, cwd, cwd / "results.jsonl.run.sqlite"))
            worked = json.loads(report.read_text())
            timing.engine_s.extend(worked["engine_s"][:1])
            if server_log is not None:
                before, paths = requests_before_scoring(server_log, offset, worked["log_ready"][0])
                timing.requests.append(before)
                asked = ", ".join(f"{n} x {p}" for p, n in paths.items())
                timing.note += f"{'; ' if timing.note else ''}run {len(timing.requests)}: {asked}"
    return timing


def requests_before_scoring(log: Path, offset: int, ready: int) -> tuple[int, Counter[str]]:
    """The requests the server's access log shows from `offset` (the run's start) to `ready`
    (the engine started, before any row is scored): their number, and how many of each method
    and path. The probes go to the completions endpoint as scoring does, so the log's position
    when the engine's start returned, not a request's path, marks where scoring begins."""
    with log.open("rb") as f:
        f.seek(offset)
        text = f.read(ready - offset).decode(errors="replace")
    paths: Counter[str] = Counter()
    for line in text.splitlines():
        match = ACCESS.search(line)
        if match is not None:
            paths[f"{match[1]} {match[2]}"] += 1
    return sum(paths.values()), paths


def model_cases(args: argparse.Namespace) -> list[Timing]:
    found: list[Timing] = []
    runs = args.model_runs
    if args.transformers:
        found.append(first_row_case("first row, transformers", [], runs, None))
    if args.vllm:
        found.append(
            first_row_case("first row, vLLM in process", ["--backend", "vllm"], runs, None)
        )
    if args.server:
        sys.path.insert(0, str(ROOT))
        from offline_recall import load_manifest, model_dir
        from tests.servers import vllm_server

        manifest = load_manifest()
        log = Path(tempfile.mkdtemp()) / "server.log"
        server = vllm_server(model_dir(manifest), manifest.context_window, log)
        server.env["PYTHONUNBUFFERED"] = "1"  # access lines reach the log as they happen
        started = time.perf_counter()
        server.start()
        start_s = time.perf_counter() - started
        try:
            timing = first_row_case(
                "first row, vLLM server",
                ["--backend", "openai", "--base-url", server.url],
                runs,
                log,
            )
        finally:
            server.stop()
        timing.note = f"server start {start_s:.1f} s; before scoring, {timing.note}"
        found.append(timing)
    return found


def row(timing: Timing) -> str:
    s = timing.seconds
    engine = f"{median(timing.engine_s):.2f}" if timing.engine_s else ""
    asked = ", ".join(str(n) for n in timing.requests)
    return (
        f"| {timing.name} | {len(s)} | {median(s):.2f} | {max(s):.2f} | {engine} | {asked} | "
        f"{timing.note} |"
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10, help="runs of each cheap case (>= 10)")
    parser.add_argument("--model-runs", type=int, default=10, help="runs of each model case")
    parser.add_argument("--only-models", action="store_true", help="skip the cheap cases")
    parser.add_argument("--transformers", action="store_true")
    parser.add_argument("--vllm", action="store_true")
    parser.add_argument("--server", action="store_true")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.worker is not None:
        worker(args.worker, [a for a in rest if a != "--"])
        return
    if args.runs < 10 and not args.only_models:
        parser.error("--runs must be at least 10: the median and the largest of fewer mean little")

    from offline_recall import __version__

    before = load()
    timings: list[Timing] = []
    if not args.only_models:
        for name, case in cheap_cases():
            timing = Timing(name)
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory() as tmp:
                    timing.seconds.append(case(Path(tmp)))
            timings.append(timing)
    timings.extend(model_cases(args))
    print(
        f"offline-recall {__version__}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs ({platform.machine()}); "
        f"load average (1, 5, 15 min) {before} before, {load()} after"
    )
    print()
    print("| case | runs | median s | max s | engine start s | requests before scoring | |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for timing in timings:
        print(row(timing))


if __name__ == "__main__":
    main()
