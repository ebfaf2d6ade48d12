"""How many rows per second does Ray with 1 and 2 workers score against the local runner, and
how much memory does the Ray driver take from 1k to 100k rows?

    python benchmarks/speed/ray_scale.py [--fake-rows 5000] [--model-rows 12]
                                         [--memory-rows 1000,10000,100000] [--skip-model]

Every run is `offline-recall score` in a process of its own (the driver), as a user runs it,
with `--no-cache` so that no run reuses another's claims. The Ray runs join one local Ray
started by this script (`ray.init(num_cpus=2)`, shut down at the end), so their times include
starting the workers and loading the engine in each, not starting Ray. Rows/s is rows over
the driver's wall time, reading and writing included.

- throughput: the fake engine over `--fake-rows` generated rows (distinct ground truths, two
  chunks each), and the embedded model (transformers, fp32) over the first `--model-rows` of
  the bundled example dataset;
- memory: the driver's peak RSS (ru_maxrss) scoring `--memory-rows` generated rows on the fake
  engine with 2 workers, the single result file written from the shards included; then the
  driver's own steps timed again in this process on the same files: reading the input for its
  fields and row count, cutting it into shards, and writing the single result file (and the
  summary) from the committed shards.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"

DRIVER = """
import json, resource, sys, time
from offline_recall.cli import main
started = time.perf_counter()
main(sys.argv[1:], prog_name="offline-recall", standalone_mode=False)
print(json.dumps({"seconds": time.perf_counter() - started,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def generated(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            truth = f"Item {i} is red. Item {i} weighs {i % 997} grams. It was made in {1900 + i}."
            context = [f"Item {i} is red and weighs {i % 997} grams.", f"Unrelated text {i}."]
            f.write(json.dumps({"id": f"row-{i}", "groundTruth": truth, "context": context}))
            f.write("\n")
    return path


def drive(args: list[str]) -> dict[str, Any]:
    """One `offline-recall` command in its own process: its wall time and peak RSS."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"offline-recall {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def throughput(
    data: Path, rows: int, engine: list[str], address: str, work: Path
) -> list[tuple[str, float, float]]:
    runs = [("local", [])] + [
        (f"Ray, {n} worker{'s' if n > 1 else ''}", ["--runner", "ray", "--workers", str(n)])
        for n in (1, 2)
    ]
    out = []
    for name, extra in runs:
        target = work / f"{data.stem}-{name.replace(' ', '').replace(',', '-')}.jsonl"
        ray = ["--ray-address", address] if extra else []
        command = ["score", str(data), *engine, "--no-cache", "--out", str(target), *extra, *ray]
        measured = drive(command)
        out.append((name, measured["seconds"], rows / measured["seconds"]))
        print(f"  {name}: {measured['seconds']:.1f} s", file=sys.stderr, flush=True)
    return out


def driver_steps(data: Path, out: Path) -> tuple[float, float, float]:
    """Seconds the driver spends on its own: reading the input for its fields and rows, cutting
    it into shards, and writing the result file (with the summary) from the shards."""
    from offline_recall.data.dataset import open_dataset
    from offline_recall.data.shards import plan_shards
    from offline_recall.runs.results import OutputFormat
    from offline_recall.runs.shard_folder import ShardFolder, default_shards_path
    from offline_recall.scorer.registry import RECALL

    folder = ShardFolder(default_shards_path(out))
    size = json.loads((folder.path / "run.json").read_text())["shard_rows"]
    started = time.perf_counter()
    dataset = open_dataset(data)
    opened = time.perf_counter()
    plan = plan_shards(dataset, size)
    cut = time.perf_counter()
    folder.export(len(plan.shards), out.with_name("again.jsonl"), OutputFormat.JSONL, [RECALL])
    merged = time.perf_counter()
    return opened - started, cut - opened, merged - cut


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fake-rows", type=int, default=5000)
    parser.add_argument("--model-rows", type=int, default=12)
    parser.add_argument("--memory-rows", default="1000,10000,100000")
    parser.add_argument("--skip-model", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()

    import ray

    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    address = context.address_info["address"]
    try:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            if not args.skip_throughput:
                print("| engine | runner | rows | seconds | rows/s |\n|---|---|---:|---:|---:|")
                fake = generated(work / "fake.jsonl", args.fake_rows)
                for name, seconds, rate in throughput(
                    fake, args.fake_rows, ["--backend", "fake"], address, work
                ):
                    print(f"| fake | {name} | {args.fake_rows} | {seconds:.1f} | {rate:.1f} |")
            if not args.skip_model and not args.skip_throughput:
                lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
                model = work / "model.jsonl"
                model.write_text("".join(lines[: args.model_rows]), encoding="utf-8")
                rows = min(args.model_rows, len(lines))
                for name, seconds, rate in throughput(model, rows, [], address, work):
                    print(
                        f"| smollm2-135m (transformers) | {name} | {rows} | {seconds:.1f} "
                        f"| {rate:.2f} |"
                    )

            print(
                "\n| rows | driver peak RSS (MiB) | seconds | rows/s | read s | cut s | merge s |"
                "\n|---:|---:|---:|---:|---:|---:|---:|"
            )
            for rows in (int(n) for n in args.memory_rows.split(",")):
                data = generated(work / f"memory-{rows}.jsonl", rows)
                command = ["score", str(data), "--backend", "fake", "--no-cache"]
                command += ["--runner", "ray", "--workers", "2", "--ray-address", address]
                started = time.perf_counter()
                out = work / f"memory-{rows}-out.jsonl"
                measured = drive([*command, "--out", str(out)])
                seconds = time.perf_counter() - started
                steps = driver_steps(data, out)
                print(
                    f"| {rows} | {measured['rss_mib']:.0f} | {seconds:.1f} "
                    f"| {rows / seconds:.1f} | {' | '.join(f'{t:.1f}' for t in steps)} |",
                    flush=True,
                )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
