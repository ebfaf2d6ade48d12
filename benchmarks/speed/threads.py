"""How do the transformers engine's thread settings hold up when another process keeps a core
busy?

    python benchmarks/speed/threads.py [--items 4] [--repeats 1]

Scores the first ITEMS example items (claims extracted afresh, no claim cache) with the
`offline-recall` command in a child process, once per setting, on a quiet machine and beside
one busy process (a Python loop that keeps one core at 100%), and prints the wall times and the
slowdown each setting suffers under load. Settings: torch's default threads (one per core),
one thread, and the default with OpenMP's passive wait policy (threads sleep instead of
spinning while they wait for each other).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
SETTINGS: dict[str, tuple[list[str], dict[str, str]]] = {
    "default threads": ([], {}),
    "1 thread": (["-o", "threads=1"], {}),
    "default, passive wait": ([], {"OMP_WAIT_POLICY": "PASSIVE"}),
}


def run(data: Path, args: list[str], env: dict[str, str], cache: Path) -> float:
    cli = Path(sys.executable).with_name("offline-recall")
    started = time.perf_counter()
    subprocess.run(
        [
            str(cli),
            "score",
            str(data),
            "--no-cache",
            "--out",
            str(data.with_suffix(".out.jsonl")),
            "--restart",
            *args,
        ],
        env={**os.environ, "OFFLINE_RECALL_CACHE": str(cache), **env},
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "items.jsonl"
        data.write_text("\n".join(EXAMPLE.read_text().splitlines()[: args.items]) + "\n")
        cache = Path(os.environ.get("OFFLINE_RECALL_CACHE", Path.home() / ".cache/offline-recall"))
        run(data, [], {}, cache)  # warm: weights converted, files in the page cache
        rows = []
        for name, (options, env) in SETTINGS.items():
            quiet = min(run(data, options, env, cache) for _ in range(args.repeats))
            busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                loaded = min(run(data, options, env, cache) for _ in range(args.repeats))
            finally:
                busy.kill()
                busy.wait()
            rows.append((name, quiet, loaded))
    print(
        f"{args.items} example items, {os.cpu_count()} cores, wall seconds (best of {args.repeats})"
    )
    print(f"{'setting':<24}{'quiet':>8}{'1 busy':>9}{'slowdown':>10}")
    for name, quiet, loaded in rows:
        print(f"{name:<24}{quiet:>8.1f}{loaded:>9.1f}{loaded / quiet:>9.1f}x")


if __name__ == "__main__":
    main()
