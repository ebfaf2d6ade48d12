"""How does the server engine compare with the in-process vLLM engine on the same items and
pairs?

    python benchmarks/speed/server.py [--items 24] [--concurrency 64] [--data ROSE_E2E.jsonl]
                                      [--dtype bfloat16|float32]

The items and pairs are those of `benchmarks/speed/throughput.py`: RoSE end-to-end dev items (seed
7), the claims extracted once by the vLLM engine and every (context, claim) pair judged with
the scorer's yes/no question about the whole context. Each mode runs in its own process, one
after the other:

  vllm    the in-process vLLM engine (--dtype, prefix caching, block size 32, both cores)
  server  the openai engine against vLLM's OpenAI server on loopback, started here with the
          same settings; its Prometheus counters give requests, tokens and prefix-cache hits

Reported: engine start, extraction and verdict seconds, items/s, verdicts/s, the server's
verdict stage as a share of the in-process one's speed, requests and prompt/completion tokens
per item, the server's prefix-cache hit rate, and each stage's per-request profile on the
server: the server's own histograms of a request's time queued, in prefill, in decode and end
to end (their sums over the stage, per request), and the requests in flight at the server on
average (Little's law: the requests' summed end-to-end time over the stage's wall time; below
the client's concurrency, the client does not keep the server fed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.recall import extract_claims, model_p_yes, recall_scorer
from benchmarks.speed.throughput import ROSE, load_items
from offline_recall import load_manifest, model_dir
from offline_recall.engines.vllm import native_dtype
from offline_recall.runs.score import resolve, session

COUNTERS = {
    "vllm:request_success_total": "requests",
    "vllm:prompt_tokens_total": "prompt_tokens",
    "vllm:generation_tokens_total": "completion_tokens",
    "vllm:prefix_cache_queries_total": "cache_queries",
    "vllm:prefix_cache_hits_total": "cache_hits",
    "vllm:request_queue_time_seconds_sum": "queue_s",
    "vllm:request_prefill_time_seconds_sum": "prefill_s",
    "vllm:request_decode_time_seconds_sum": "decode_s",
    "vllm:e2e_request_latency_seconds_sum": "e2e_s",
}


def counters(url: str) -> dict[str, float]:
    """The server's request, token and prefix-cache totals so far."""
    with urllib.request.urlopen(url.removesuffix("/v1") + "/metrics", timeout=10) as r:
        text = r.read().decode()
    totals = dict.fromkeys(COUNTERS.values(), 0.0)
    for line in text.splitlines():
        match = re.match(r"^([\w:]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if match and match[1] in COUNTERS:
            totals[COUNTERS[match[1]]] += float(match[2])
    return totals


def worker(mode: str, job: Path, out: Path) -> None:
    """One mode: extract the items' claims, then judge the job's pairs, each stage timed."""
    work = json.loads(job.read_text())
    on_server = mode == "server"
    options = (
        {"base_url": work["url"], "concurrency": work["concurrency"]}
        if on_server
        else {"dtype": work["dtype"]}
    )
    resolved = resolve(backend="openai" if on_server else "vllm", engine_options=options)
    started = time.perf_counter()
    scoring = session(resolved)
    report: dict[str, Any] = {"start_s": time.perf_counter() - started}
    scorer = recall_scorer(scoring)
    question = scorer.judge.question
    marks: dict[str, dict[str, float]] = {}

    def mark(name: str) -> None:
        if on_server:
            marks[name] = counters(work["url"])

    mark("extract")
    started = time.perf_counter()
    claims = extract_claims(scorer, work["texts"])
    report["extract_s"] = time.perf_counter() - started
    mark("extracted")
    pairs = [(c, q) for c, q in work["pairs"]] or [
        (context, claim)
        for context, found in zip(work["contexts"], claims, strict=True)
        for claim in found or []
    ]
    model_p_yes(scoring.engine, question, pairs[:2])  # compiles the grammar outside the timings
    mark("judge")
    started = time.perf_counter()
    p_yes = model_p_yes(scoring.engine, question, pairs)
    report["judge_s"] = time.perf_counter() - started
    mark("judged")
    scoring.close()
    if on_server:
        report["stages"] = {
            stage: {k: marks[end][k] - marks[begin][k] for k in marks[begin]}
            for stage, begin, end in (
                ("extraction", "extract", "extracted"),
                ("verdicts", "judge", "judged"),
            )
        }
    report.update(claims=claims, pairs=pairs, p_yes=p_yes)
    out.write_text(json.dumps(report))


def run(mode: str, work: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job.write_text(json.dumps(work))
        cmd = [sys.executable, __file__, "--worker", mode, str(job), str(out)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)  # logs apart from the table
        found: dict[str, Any] = json.loads(out.read_text())
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=24)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--data", type=Path, default=ROSE)
    parser.add_argument(
        "--dtype", choices=("bfloat16", "float32"), help="vLLM's [default: the engine's here]"
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.dtype = args.dtype or native_dtype()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]), Path(args.worker[2]))
        return

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.servers import vllm_server

    items = load_items(args.data, args.items)
    work: dict[str, Any] = {
        "texts": [i["ground_truth"] for i in items],
        "contexts": [i["context"] for i in items],
        "pairs": [],
        "url": "",
        "concurrency": args.concurrency,
        "dtype": args.dtype,
    }
    local = run("vllm", work)
    work["pairs"] = local["pairs"]  # the server judges exactly these pairs
    manifest = load_manifest()
    log = Path(tempfile.mkdtemp()) / "server.log"
    started = time.perf_counter()
    server = vllm_server(model_dir(manifest), manifest.context_window, log, args.dtype).start()
    server_start_s = time.perf_counter() - started
    try:
        work["url"] = server.url
        served = run("server", work)
    finally:
        server.stop()

    n, v = len(items), len(local["pairs"])
    same = sum(a == b for a, b in zip(local["claims"], served["claims"], strict=True))
    diff = max(abs(a - b) for a, b in zip(local["p_yes"], served["p_yes"], strict=True))
    print(
        f"{n} items, {v} verdicts; claims identical for {same}/{n} items; dtype {args.dtype}; "
        f"concurrency {args.concurrency}; load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"max |P(yes) server - engine| = {diff:.1e}; server start {server_start_s:.0f} s")
    print("| mode | start s | extract s | judge s | items/s | verdicts/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in (("vllm (in process)", local), ("openai (vLLM server)", served)):
        items_s = n / (r["extract_s"] + r["judge_s"])
        print(
            f"| {name} | {r['start_s']:.1f} | {r['extract_s']:.1f} | {r['judge_s']:.1f} | "
            f"{items_s:.3f} | {v / r['judge_s']:.1f} |"
        )
    share = local["judge_s"] / served["judge_s"]
    print(f"server verdict stage speed / in-process verdict stage speed: {share:.0%}")
    stages = served["stages"]
    total = {k: stages["extraction"][k] + stages["verdicts"][k] for k in stages["verdicts"]}
    print(
        f"server, per item: {total['requests'] / n:.1f} requests, "
        f"{total['prompt_tokens'] / n:.0f} prompt tokens, "
        f"{total['completion_tokens'] / n:.1f} completion tokens"
    )
    for name, stage in stages.items():
        queries = stage["cache_queries"]
        hit = stage["cache_hits"] / queries if queries else 0.0
        print(
            f"prefix cache, {name}: {hit:.0%} of {queries:.0f} prompt tokens found "
            f"({stage['requests']:.0f} requests)"
        )
    print()
    print("Server path, per request (ms), from the server's histograms:")
    head = "| stage | requests | wall s | mean in flight | queued | prefill | decode | end to end |"
    print(head)
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, wall in (("extraction", served["extract_s"]), ("verdicts", served["judge_s"])):
        stage = stages[name]
        requests = stage["requests"] or 1.0
        ms = {k: 1000 * stage[k] / requests for k in ("queue_s", "prefill_s", "decode_s", "e2e_s")}
        print(
            f"| {name} | {stage['requests']:.0f} | {wall:.1f} | {stage['e2e_s'] / wall:.1f} | "
            f"{ms['queue_s']:.0f} | {ms['prefill_s']:.0f} | {ms['decode_s']:.0f} | "
            f"{ms['e2e_s']:.0f} |"
        )


if __name__ == "__main__":
    main()
