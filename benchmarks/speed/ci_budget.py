"""Does scoring a labelled set fit a CI job's budget? 100 RoSE dev rows (reference summary as
the ground truth, one system summary as the context, the annotators' recall as the label)
scored end to end by context recall on the default model and judge, as `score` scores them.

    python benchmarks/speed/ci_budget.py [--rows 100] [--model NAME] [--backend auto]

Prints a Markdown table: the model's load, each stage of the batch (claim extraction, the
verdicts) from its first to its last progress report, the whole run, items/s, the process's
peak memory (resident set), how many verdicts asked the model, and how the scores follow the
human recall (Spearman with a bootstrap 95% interval over rows, MAE), so a
faster configuration cannot hide a worse one. Nothing is cached between runs: claims are
extracted afresh.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from statistics import fmean

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scipy.stats import spearmanr

from benchmarks.quality.quality_data import ROSE_E2E, rose_e2e
from benchmarks.quality.quality_metrics import spearman_interval
from benchmarks.quality.recall import recall_scorer
from offline_recall import Status
from offline_recall.engines import AUTO
from offline_recall.engines.manifests import DEFAULT_MODEL
from offline_recall.runs.score import resolve, session

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SEED = 0


class Stages:
    """When each stage of a batch first and last told its progress."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.total: dict[str, int] = {}

    def __call__(self, name: str, done: int, total: int) -> None:
        now = time.perf_counter()
        self.first.setdefault(name, now)
        self.last[name] = now
        self.total[name] = total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", default=AUTO, help="the engine [default: the model's own]")
    parser.add_argument("--out", type=Path, help="also write each row's result here (JSON Lines)")
    parser.add_argument("--json", type=Path, help="also write the measurements here (one object)")
    args = parser.parse_args()
    rows = rose_e2e(args.data / ROSE_E2E, args.rows, SEED)
    runs = [{"ground_truth": r.reference, "context": list(r.contexts)} for r in rows]

    began = time.perf_counter()
    resolved = resolve(model=args.model, backend=args.backend)
    scoring = session(resolved)
    scorer = recall_scorer(scoring)
    loaded = time.perf_counter()
    stages = Stages()
    results = scorer.run_many(runs, progress=stages)
    ended = time.perf_counter()
    scoring.close()
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2

    if args.out is not None:
        with args.out.open("w", encoding="utf-8") as f:
            for result, row in zip(results, rows, strict=True):
                record = {"id": row.id, "human_recall": row.target, **result.model_dump()}
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    failed = sum(r.status == Status.ERROR for r in results)
    kept = [(r, row.target) for r, row in zip(results, rows, strict=True) if r.score is not None]
    human = [float(t or 0.0) for _, t in kept]
    decided = [float(r.score or 0.0) for r, _ in kept]
    expected = [
        r.expected_recall if r.expected_recall is not None else float(r.score or 0.0)
        for r, _ in kept
    ]
    verdicts = sum(len(r.verdicts) for r in results)
    asked = sum(v.model_p_yes is not None for r in results for v in r.verdicts)

    spec = resolved.spec
    print(f"{len(rows)} RoSE dev rows, {spec.model_fingerprint} on {spec.engine.name}")
    print()
    print("| stage | seconds | work |")
    print("|---|---:|---|")
    print(f"| load | {loaded - began:.1f} | manifest, weights verified, engine started |")
    for name, first in stages.first.items():
        print(f"| {name} | {stages.last[name] - first:.1f} | {stages.total[name]} |")
    print(f"| scoring, all stages | {ended - loaded:.1f} | {len(rows)} rows, {verdicts} claims |")
    print(f"| end to end | {ended - began:.1f} | {len(rows) / (ended - began):.3f} items/s |")
    print()
    print(f"peak memory {peak_gib:.2f} GiB; failed rows {failed}; {len(kept)} rows scored")
    print(f"claims whose best chunk's verdict asked the model: {asked} of {verdicts}")
    print()
    print("| recall against human recall | Spearman [95% interval] | MAE |")
    print("|---|---:|---:|")
    agreement = {}
    for name, found in (("decided", decided), ("expected", expected)):
        rho = spearmanr(found, human).statistic
        interval = spearman_interval(human, found)
        mae = fmean(abs(a - b) for a, b in zip(found, human, strict=True))
        agreement[name] = {"spearman": rho, "interval": str(interval), "mae": mae}
        print(f"| {name} | {rho:.3f} {interval} | {mae:.3f} |")
    if args.json is not None:
        measured = {
            "rows": len(rows),
            "fingerprint": spec.model_fingerprint,
            "engine": spec.engine.name,
            "load_s": loaded - began,
            "stages_s": {name: stages.last[name] - first for name, first in stages.first.items()},
            "scoring_s": ended - loaded,
            "end_to_end_s": ended - began,
            "items_per_s": len(rows) / (ended - began),
            "peak_gib": peak_gib,
            "failed": failed,
            "verdicts": verdicts,
            "asked": asked,
            "agreement": agreement,
        }
        args.json.write_text(json.dumps(measured, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
