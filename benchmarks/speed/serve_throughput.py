"""How many runs a second does `offline-recall serve` score for concurrent clients, against
`offline-recall score` on the same rows and engine?

    python benchmarks/speed/serve_throughput.py [--backend fake] [--model NAME] [--items 512]
        [--clients 32] [--scorer ID[,ID...]] [--repeats 3]

Makes ITEMS distinct rows from the example dataset (each ground truth and context marked with
its row's number, so no two are the same), scores them with `offline-recall score` in a child
process (no claim cache, a fresh store), then sends each row to `offline-recall serve`, one
request per scorer, from one client and from CLIENTS clients at once (threads, one keep-alive
connection each, on the standard library's HTTP client, which costs the machine less than
httpx). Prints the items per second of each, best of REPEATS, with `score`'s measured two
ways: the whole command, and less its start-up (the same command on one row). The service's
start-up (the model load) is not counted: it is paid once. Every served result is checked
against the one `score` wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.client import HTTPConnection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
CLI = Path(sys.executable).with_name("offline-recall")


def rows(count: int) -> list[dict[str, Any]]:
    """`count` distinct rows: the example's, each marked with its number."""
    found = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    made = []
    for n in range(count):
        row = found[n % len(found)]
        made.append(
            {
                "input": row["input"],
                "output": f"As far as I know, {row['groundTruth']}",
                "groundTruth": f"{row['groundTruth']} This is row {n}.",
                "context": [*row["context"], f"This is row {n}."],
            }
        )
    return made


def score(data: Path, engine: list[str], scorers: str, env: dict[str, str]) -> float:
    """Wall seconds of `offline-recall score DATA` with a fresh store and no claim cache."""
    out = data.with_suffix(".results.jsonl")
    flags = ["--no-cache", "--restart", "--no-judge-note"]
    started = time.perf_counter()
    subprocess.run(
        [str(CLI), "score", str(data), *engine, "--scorer", scorers, "--out", str(out), *flags],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


@contextmanager
def serving(engine: list[str], scorers: str, env: dict[str, str]) -> Iterator[str]:
    """`offline-recall serve` on a free loopback port, once it says where it listens."""
    process = subprocess.Popen(
        [str(CLI), "serve", "--port", "0", *engine, "--scorer", scorers, "--no-judge-note"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 900)
        found = re.match(r"listening on (\S+)", process.stdout.readline() if ready else "")
        if found is None:
            raise SystemExit("serve did not start")
        yield found.group(1)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)


Send = tuple[int, str, dict[str, Any]]
"""A row's number, a scorer id and the row as a request's run."""


def served(url: str, work: list[Send], clients: int) -> tuple[float, dict[tuple[int, str], Any]]:
    """Wall seconds for `clients` threads to send every (row, scorer, run) of `work`, and
    each answer."""
    todo: queue.SimpleQueue[Send] = queue.SimpleQueue()
    for item in work:
        todo.put(item)
    answers: dict[tuple[int, str], Any] = {}

    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    headers = {"Content-Type": "application/json"}

    def client() -> None:
        http = HTTPConnection(parts.hostname or "", parts.port, timeout=600)
        try:
            while True:
                try:
                    n, sid, run = todo.get_nowait()
                except queue.Empty:
                    return
                http.request("POST", f"/score/{sid}", json.dumps(run), headers)
                answers[n, sid] = json.loads(http.getresponse().read())
        finally:
            http.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", default="fake")
    parser.add_argument("--model", default=None)
    parser.add_argument("--items", type=int, default=512)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--scorer", default="context-recall-scorer")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    engine = ["--backend", args.backend] + (["--model", args.model] if args.model else [])
    scorers = args.scorer.split(",")
    made = rows(args.items)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        env = dict(os.environ)
        data, one = work / "rows.jsonl", work / "one.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in made), encoding="utf-8")
        one.write_text(json.dumps(made[0]) + "\n", encoding="utf-8")
        score(one, engine, args.scorer, env)  # warm: files in the page cache
        whole = min(score(data, engine, args.scorer, env) for _ in range(args.repeats))
        start_up = min(score(one, engine, args.scorer, env) for _ in range(args.repeats))
        written = [
            json.loads(line)["results"]
            for line in data.with_suffix(".results.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        sends = [(n, sid, run) for n, run in enumerate(made) for sid in scorers]
        timings: dict[int, float] = {}
        wrong = 0
        with serving(engine, args.scorer, env) as url:
            served(url, sends[: args.clients], args.clients)  # warm: connections, first batch
            for clients in sorted({1, args.clients}):
                best = None
                for _ in range(args.repeats):
                    seconds, answers = served(url, sends, clients)
                    wrong += sum(answers[n, sid] != written[n][sid] for n, sid, _ in sends)
                    best = seconds if best is None else min(best, seconds)
                assert best is not None
                timings[clients] = best
    items = len(made)
    print(
        f"{items} rows, scorers {args.scorer}, engine {' '.join(engine)}, {os.cpu_count()} cores; "
        f"best of {args.repeats}; served results that differ from score's: {wrong}"
    )
    scoring = whole - start_up
    rates = {
        "`score`, the whole command": (1, whole),
        f"`score`, less its start-up ({start_up:.2f} s on one row)": (1, scoring),
        **{f"`serve`, {c} client{'s' if c > 1 else ''}": (c, t) for c, t in timings.items()},
    }
    print("| how | seconds | items/s | vs `score` | vs `score` less start-up |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for how, (_, seconds) in rates.items():
        rate = items / seconds
        print(
            f"| {how} | {seconds:.2f} | {rate:.1f} | {rate * whole / items:.2f} | "
            f"{rate * scoring / items:.2f} |"
        )


if __name__ == "__main__":
    main()
