"""Does the HTML report stay usable at scale: how long and how much memory building it takes,
and how soon headless Chromium shows it, for N result rows?

    python benchmarks/speed/report_scale.py [--rows 100000] [--rows 2000 ...] [--keep DIR]

Scores the bundled example on the fake engine (context recall and precision), repeats its
records to ROWS synthetic rows (each with its own line and id), builds the report with the
`offline-recall report` command in a child process, and prints per size: rows, build seconds,
the build's peak memory (its maximum resident set, from `resource.getrusage`), the page's
size, and three times in headless Chromium (/usr/bin/chromium) with a fresh profile: until the
page's script has shown the first page of items (from navigation start, as the page measures
it), browser start to that page's DOM read back, and the wall time of taking a screenshot
(browser start to a frame painted once the whole page has loaded).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
CHROMIUM = [
    "/usr/bin/chromium",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]
SCORERS = "context-recall-scorer,context-precision-scorer"
# Run after the page's own script: when the first page of items is shown; then the items'
# inert sources are dropped, so dumping the DOM does not copy the whole page back.
PROBE = (
    "<script>document.documentElement.setAttribute('data-shown-ms',"
    " String(performance.now()));"
    "document.querySelectorAll('script.item-source').forEach((s) => s.remove());</script></body>"
)


def cli() -> str:
    return str(Path(sys.executable).with_name("offline-recall"))


def seed_records(folder: Path) -> list[dict[str, object]]:
    """The example scored on the fake engine: the records repeated to make a long run."""
    out = folder / "seed.jsonl"
    subprocess.run(
        [cli(), "score", str(EXAMPLE), "--backend", "fake", "--no-cache",
         "--scorer", SCORERS, "--out", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def synthetic(seed: list[dict[str, object]], rows: int, path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            record = dict(seed[i % len(seed)])
            record["line"] = i + 1
            record["id"] = f"{record['id'] or 'row'}-{i + 1}"
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def build(results: Path, page: Path) -> tuple[float, float]:
    """Seconds and peak resident MiB of `offline-recall report` in a child process."""
    started = time.perf_counter()
    # A fresh Python per build: the largest child's peak is this build's alone.
    probe = (
        "import resource, subprocess, sys;"
        "subprocess.run(sys.argv[1:], check=True, capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, cli(), "report", str(results), "--out", str(page)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    return seconds, int(done.stdout.strip()) / 1024


def chromium(page: Path, *args: str, timeout: float = 300) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as profile:
        started = time.perf_counter()
        done = subprocess.run(
            [*CHROMIUM, f"--user-data-dir={profile}", *args, page.as_uri()],
            capture_output=True, text=True, timeout=timeout, check=True,
        )  # fmt: skip
        return time.perf_counter() - started, done.stdout


def open_times(page: Path, folder: Path) -> tuple[float, float, float, int]:
    """Milliseconds until the first page of items is shown (from navigation start), seconds
    from browser start to the DOM read back after it, seconds to a painted screenshot, and
    how many items the shown page holds."""
    probe = folder / "probe.html"
    with page.open(encoding="utf-8") as src, probe.open("w", encoding="utf-8") as dst:
        for chunk in src:
            dst.write(chunk.replace("</body>", PROBE))
    opened, dom = chromium(probe, "--dump-dom")
    shown = re.search(r'data-shown-ms="([\d.]+)"', dom)
    listed = re.search(r'<div id="items"[^>]*>(.*?)</div>\s*<nav', dom, re.DOTALL)
    items = len(re.findall(r'<article class="item"', listed.group(1))) if listed else 0
    seconds, _ = chromium(page, f"--screenshot={folder / 'shot.png'}")
    return float(shown.group(1)) if shown else float("nan"), opened, seconds, items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, action="append")
    parser.add_argument("--keep", type=Path, default=None, help="keep the files in DIR")
    args = parser.parse_args()
    sizes = args.rows or [100_000]
    with tempfile.TemporaryDirectory() as work:
        folder = args.keep or Path(work)
        folder.mkdir(parents=True, exist_ok=True)
        seed = seed_records(folder)
        print("| Rows | Build (s) | Build peak memory (MiB) | Page (MB) "
              "| First page shown (ms) | Opened, browser start to DOM (s) "
              "| Screenshot wall (s) | Items on the page |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for rows in sizes:
            results = folder / f"results-{rows}.jsonl"
            page = folder / f"report-{rows}.html"
            synthetic(seed, rows, results)
            seconds, peak = build(results, page)
            shown, opened, shot, items = open_times(page, folder)
            size = page.stat().st_size / 1e6
            print(
                f"| {rows:,} | {seconds:.1f} | {peak:.0f} | {size:.0f} | {shown:.0f} "
                f"| {opened:.1f} | {shot:.1f} | {items} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
