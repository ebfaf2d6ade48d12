"""offline-recall side by side with RAGAS, DeepEval and Mastra on the same local model.

    python benchmarks/peers/run.py [--model smollm2-135m-instruct] [--items 16] \
        [--precision-items 12] [--concurrency 16] [--dtype bfloat16|float32]

(`make peers` installs the peers, then runs this.) One run, one machine, one model: --model, a
bundled model installed here (by default the embedded SmolLM2-135M-Instruct), on vLLM's CPU
build, in --dtype (by default the vLLM engine's for this machine: bfloat16 with AVX-512, float32
on an x86 CPU without it). Two tasks on items whose truth is known: context recall on RoSE
end-to-end dev items (human recall), and context precision on ClapNQ ranked lists (the gold
passage at a known rank among the nearest other passages, so the true average precision is
known; benchmarks/quality/precision_data.py). A task given 0 items is not run.

1. offline-recall scores both tasks' items on its in-process vLLM engine, once with its shipped
   judge profiles and once with verdicts made by the model (P(yes) at the manifest's
   threshold); requests and tokens are counted from the engine's outputs.
2. A vLLM OpenAI-compatible server for the model starts on loopback. offline-recall scores the
   items through it with its `openai` engine, both ways; then each peer scores each task's
   items against it, one system at a time, in its own environment (RAGAS and DeepEval in
   benchmarks/peers/.venv, Mastra under Node 22 in mastra/node_modules). Before each system's
   run the server's prefix cache is emptied; its Prometheus counters, read around the run, give
   requests, tokens and prefix-cache hits. A peer that exits with an error fails every row.
3. One table per task, printed and written to benchmarks/peers/RESULTS.md.

Times are the scoring alone: the server's and each engine's start-up, and each peer's imports,
are left out of every row; the server's start and the in-process engine's are reported apart.
The load average is sampled every 10 s through the run and reported with it. Completions
are capped at --max-tokens by the server for every client that does not ask for less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(1, str(ROOT))  # `benchmarks.*`, beside this folder's modules

import local_server as server  # noqa: E402
from report import Run, precision_table, recall_table  # noqa: E402
from results import write_results  # noqa: E402

from benchmarks.quality.precision_data import clapnq_lists  # noqa: E402
from offline_recall import DEFAULT_MODEL, ModelError, load_manifest, model_dir  # noqa: E402
from offline_recall.engines.vllm import native_dtype  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
ROSE = DATA / "rose" / "e2e_acu_recall_dev.jsonl"
WORK = HERE / "out"
PEER_PYTHON = HERE / ".venv" / "bin" / "python"
NODE = HERE / "mastra" / "node_modules" / "node" / "bin" / "node"
TASKS = ("recall", "precision")
SEED = 0

# offline-recall's rows: (engine, verdicts, name).
OURS = (
    ("openai", "profile", "offline-recall (server, shipped profiles)"),
    ("openai", "model", "offline-recall (server, model verdicts)"),
    ("vllm", "profile", "offline-recall (in-process vLLM, shipped profiles)"),
    ("vllm", "model", "offline-recall (in-process vLLM, model verdicts)"),
)


class LoadSampler:
    """The one-minute load average, sampled every 10 s in a thread until stopped."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(10):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        if not self.samples:
            return "not sampled"
        found = sorted(self.samples)
        return (
            f"{found[0]:.1f} to {found[-1]:.1f}, median {found[len(found) // 2]:.1f} "
            f"({len(found)} samples)"
        )


def recall_items(path: Path, n: int) -> list[dict[str, Any]]:
    """n RoSE items with a context, in a fixed seeded order."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["contexts"] and r["reference"].strip()]
    random.Random(SEED).shuffle(rows)
    return [
        {
            "id": r["id"],
            "ground_truth": r["reference"],
            "context": r["contexts"],
            "human_recall": r["human_recall"],
        }
        for r in rows[:n]
    ]


def precision_items(data: Path, n: int) -> list[dict[str, Any]]:
    """The first n ClapNQ ranked lists: the gold passage's rank cycles through 1 to 4."""
    from offline_recall.metrics.precision import average_precision

    return [
        {
            "id": r.id,
            "question": r.question,
            "answer": r.answer,
            "chunks": r.chunks,
            "relevant": r.relevant,
            "true_ap": average_precision(r.relevant),
        }
        for r in clapnq_lists(data)[:n]
    ]


def peer_commands(
    task: str, model: str, concurrency: int, max_tokens: int
) -> list[tuple[str, list[str]]]:
    """Each peer's command for a task: items in, its rows out, the server, the model, its
    settings."""

    def args(name: str) -> list[str]:
        out = WORK / f"{task}-{name.lower()}.jsonl"
        items = WORK / f"{task}-items.jsonl"
        return [task, str(items), str(out), server.URL, model, str(concurrency)]

    python, m = str(PEER_PYTHON), str(max_tokens)
    return [
        ("RAGAS", [python, str(HERE / "ragas_peer.py"), *args("RAGAS"), m]),
        ("DeepEval", [python, str(HERE / "deepeval_peer.py"), *args("DeepEval"), m]),
        # Mastra's scorers have no token limit to pass: the server's cap applies.
        ("Mastra", [str(NODE), str(HERE / "mastra" / "score.mjs"), *args("Mastra")]),
    ]


def rows_of(path: Path, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line]
    assert [r["id"] for r in rows] == [i["id"] for i in items]
    return rows


def as_run(name: str, seconds: float, rows: list[dict[str, Any]], usage: server.Usage) -> Run:
    return Run(
        name=name,
        seconds=seconds,
        scores=[r["score"] for r in rows],
        verdicts=[r.get("verdicts") for r in rows],
        usage=usage,
        errors=[r["error"] for r in rows if r["error"]],
    )


def run_peer(task: str, name: str, cmd: list[str], items: list[dict[str, Any]]) -> Run:
    """A peer's run; a peer that exits with an error fails every row, with its last line."""
    log = WORK / f"{task}-{name.lower()}.log"
    server.reset_prefix_cache()
    before = server.counters()
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall_s = time.perf_counter() - started
    after = server.counters()
    log.write_text(done.stdout + done.stderr)
    used = server.usage(before, after)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1][:200]
        error = f"{name} exited with {done.returncode}: {last}"
        rows = [{"id": i["id"], "score": None, "error": error} for i in items]
        return as_run(name, wall_s, rows, used)
    seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
    rows = rows_of(WORK / f"{task}-{name.lower()}.jsonl", items)
    return as_run(name, seconds, rows, used)


def run_ours(
    engine: str,
    verdicts: str,
    name: str,
    args: argparse.Namespace,
    items: dict[str, list[dict[str, Any]]],
) -> tuple[dict[str, Run], dict[str, Any]]:
    """offline-recall's runs of the tasks that have items, in a process of its own (the
    engine's workers spawn), and its report (with each scorer's judge signals)."""
    stem = f"offline-recall-{engine}-{verdicts}"
    paths = [p for t in TASKS for p in (WORK / f"{t}-items.jsonl", WORK / f"{t}-{stem}.jsonl")]
    cmd = [sys.executable, str(HERE / "offline_recall_peer.py"), args.model, engine, verdicts]
    done = subprocess.run(
        [*cmd, str(args.concurrency), args.dtype, *map(str, paths)],
        env=server.cpu_env(),
        capture_output=True,
        text=True,
    )
    log = WORK / f"{stem}.log"
    log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"{name} exited with {done.returncode}; see {log}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    runs = {}
    for task, scorer_id in zip(
        TASKS, ("context-recall-scorer", "context-precision-scorer"), strict=True
    ):
        if not items[task]:
            continue
        found = report[scorer_id]
        rows = rows_of(WORK / f"{task}-{stem}.jsonl", items[task])
        runs[task] = as_run(name, found["seconds"], rows, server.Usage(**found["usage"]))
    return runs, report


def count(text: str) -> int:
    """A number of items: 0 or more."""
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is below 0")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--model", default=DEFAULT_MODEL, help="a bundled model's name [default: %(default)s]"
    )
    parser.add_argument("--items", type=count, default=16, help="RoSE items for recall")
    parser.add_argument("--precision-items", type=count, default=12, help="ClapNQ ranked lists")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument(
        "--dtype", choices=("bfloat16", "float32"), help="[default: the vLLM engine's here]"
    )
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    args.dtype = args.dtype or native_dtype()
    if args.items == 0 and args.precision_items == 0:
        parser.error("nothing to score: give --items or --precision-items more than 0")
    try:
        load_manifest(args.model)
    except ModelError as e:
        parser.error(str(e))

    os.environ["HF_HUB_OFFLINE"] = "1"
    WORK.mkdir(exist_ok=True)
    items = {
        "recall": recall_items(args.data / ROSE.relative_to(DATA), args.items),
        "precision": precision_items(args.data, args.precision_items),
    }
    for task in TASKS:
        (WORK / f"{task}-items.jsonl").write_text(
            "".join(json.dumps(i) + "\n" for i in items[task])
        )
    tasks = [t for t in TASKS if items[t]]
    peers: dict[str, list[Run]] = {t: [] for t in tasks}
    mine: dict[str, dict[str, Run]] = {}
    judges: dict[str, dict[str, Any]] = {}
    starts: dict[str, float] = {}
    load = LoadSampler()

    def ours(engine: str, verdicts: str, name: str) -> None:
        print(f"{name} ...", flush=True)
        mine[name], judges[verdicts] = run_ours(engine, verdicts, name, args, items)
        starts[name] = judges[verdicts]["start_s"]

    began = time.perf_counter()
    # In process first, with no server running; then every system on the one server.
    for engine, verdicts, name in OURS[2:]:
        ours(engine, verdicts, name)
    started = time.perf_counter()
    folder = model_dir(load_manifest(args.model))
    process = server.start(folder, args.model, args.max_tokens, args.dtype, WORK / "server.log")
    server_start_s = time.perf_counter() - started
    try:
        for engine, verdicts, name in OURS[:2]:
            ours(engine, verdicts, name)
        for task in tasks:
            for name, cmd in peer_commands(task, args.model, args.concurrency, args.max_tokens):
                print(f"{task}: {name} ...", flush=True)
                peers[task].append(run_peer(task, name, cmd, items[task]))
    finally:
        process.terminate()
        process.wait(timeout=60)
    wall_s = time.perf_counter() - began
    load.stop()
    runs = {t: [*peers[t], *(mine[name][t] for _, _, name in OURS)] for t in tasks}

    human: list[float | None] = [i["human_recall"] for i in items["recall"]]
    true_ap = [i["true_ap"] for i in items["precision"]]
    relevant = [i["relevant"] for i in items["precision"]]
    tables: dict[str, list[str]] = {}
    if "recall" in runs:
        tables["recall"] = recall_table(runs["recall"], human)
    if "precision" in runs:
        tables["precision"] = precision_table(runs["precision"], true_ap, relevant)
    for task in tasks:
        print("\n".join(tables[task]) + "\n")
    starts["server"] = server_start_s
    write_results(args, items, runs, tables, judges, starts, load.summary(), wall_s)


if __name__ == "__main__":
    main()
