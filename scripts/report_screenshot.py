"""Re-make the README's report screenshot from a real run of the example on the embedded model.

    python scripts/report_screenshot.py [--results example-results.jsonl]

Scores the bundled example on the embedded model (unless --results names a file `score`
wrote), writes its HTML report, renders it in headless Chromium (/usr/bin/chromium) to
tests/snapshots/report.png, and prints what the README says of the run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from offline_recall import read_results

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
SHOT = ROOT / "tests" / "snapshots" / "report.png"
CHROMIUM = [
    "/usr/bin/chromium",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def offline_recall(*args: str | Path) -> None:
    cli = Path(sys.executable).with_name("offline-recall")
    subprocess.run([str(cli), *map(str, args)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        results = args.results
        if results is None:
            results = folder / "example-results.jsonl"
            offline_recall("score", EXAMPLE, "--out", results)
        page = folder / "report.html"
        offline_recall("report", results, "--out", page)
        subprocess.run(
            [
                *CHROMIUM,
                f"--user-data-dir={folder / 'profile'}",
                f"--screenshot={SHOT}",
                "--window-size=1280,1600",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
        )
        records = read_results(results)
    judged = [j for r in records for res in r.results.values() for j in res.judgments()]
    supported = sum(j.positive for j in judged)
    print(f"wrote {SHOT.relative_to(ROOT)}")
    print(f"README: the tiny embedded model supports {supported} of {len(judged)} claims here")


if __name__ == "__main__":
    main()
