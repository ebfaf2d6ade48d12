"""How fast do the engines score on the embedded model: what a verdict costs, and how near
the engine's limit each mode runs?

    python benchmarks/speed/throughput.py [--items 24] [--data ROSE_E2E.jsonl] [--dtype float32]

Data: RoSE end-to-end dev items (reference summary as the ground truth, one system summary
as the context), chosen with a fixed seed. Claims are extracted once by the scorer on the
transformers engine, and every mode asks the model's P(yes) (the scorer's yes/no question
about the whole context) for the same (context, claim) pairs, so the verdict stages are
comparable. Each vLLM mode runs in its own process (one engine per process).

Modes (transformers in float32, vLLM in --dtype, the engine's default for this machine unless
given, with its threads on every core):
  hf-naive      transformers, one forward pass per pair, no prefix reuse
  hf-reuse      transformers, a context's prompt head computed once and its cached keys and
                values reused for each of its claims, one claim at a time
  vllm-nocache  vLLM with prefix caching off
  vllm          vLLM with prefix caching (block size 32): the engine's defaults
  vllm-lookup   vllm with prompt-lookup speculative decoding (4 draft tokens), an option
  raw           the engine alone: a bare generate (one token, no grammar, no log-probabilities,
                no caching) over exactly the tokens the cached path must compute: each context's
                prompt once, and every other prompt's own tail

Efficiency = the raw engine's time for the non-cached tokens / the mode's time. For claim
extraction on vLLM, the decode efficiency: the extraction's generated tokens/s against the same
prompts run bare in one batch (no grammar, each generating as many tokens as it did).
Then: cost per item against the number of claims and the context length (vLLM, hf-reuse),
and the bulk runner's peak memory for 1,000 and 10,000 items (`offline-recall score` on the
fake engine: the runner's own memory, which is what grows with the number of items; an
engine's is fixed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import quality_data as data
from benchmarks.quality.recall import Pair, extract_claims, model_p_yes, recall_scorer
from offline_recall import Engine, create_engine
from offline_recall.engines.vllm import native_dtype
from offline_recall.judging.judge import Question
from offline_recall.runs.score import resolve, session

LOOKUP_TOKENS = 4
ROSE = data.DATA / data.ROSE_E2E


def load_items(path: Path, n: int) -> list[dict[str, Any]]:
    rows = data.read_jsonl(path)
    random.Random(7).shuffle(rows)
    seen: set[str] = set()
    items = []
    for row in rows:  # distinct references, so every item is its own extraction
        if row["reference"] not in seen and row["contexts"]:
            seen.add(row["reference"])
            items.append({"ground_truth": row["reference"], "context": row["contexts"][0]})
        if len(items) == n:
            break
    return items


def timed(fn: Any, *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - started


def judge(engine: Engine, question: Question, pairs: Sequence[Pair]) -> list[float]:
    """The model's P(yes) for each pair; a pair the engine failed on stops the benchmark."""
    found = model_p_yes(engine, question, pairs)
    if None in found:
        raise RuntimeError(f"the engine failed on {found.count(None)} of {len(pairs)} pairs")
    return [p for p in found if p is not None]


def split_tokens(
    chat: Any, question: Question, pairs: list[Pair]
) -> tuple[list[list[int]], int, int]:
    """Raw-engine inputs with the non-cached tokens, and the total prompt tokens of all pairs.

    Per context: its first pair's whole prompt, then each other pair's tokens past the
    prompt head the context's pairs share. `chat` is an engine's chat template.
    """
    by_context: dict[str, list[list[int]]] = {}
    for context, claim in pairs:
        ids = chat.ids(question.prompt(context, claim))
        by_context.setdefault(context, []).append(ids)
    inputs: list[list[int]] = []
    total = 0
    for rows in by_context.values():
        total += sum(len(r) for r in rows)
        shared = min(len(r) for r in rows) - 1
        while shared > 0 and any(r[:shared] != rows[0][:shared] for r in rows):
            shared -= 1
        inputs.append(rows[0])
        inputs.extend(r[shared:] for r in rows[1:])
    return inputs, sum(len(i) for i in inputs), total


def synthetic(items: list[dict[str, Any]], claims: int, context_tokens: int) -> list[Pair]:
    """One item: a context of about `context_tokens` words-ish, `claims` distinct claims."""
    words = " ".join(i["context"] for i in items).split()
    context = " ".join(words[: int(context_tokens * 0.75)])
    sentences = [s for i in items for s in i["ground_truth"].split(". ") if len(s) > 20]
    return [(context, f"{sentences[k % len(sentences)]} ({k})") for k in range(claims)]


# The vLLM side, one engine per process --------------------------------------------------


def vllm_worker(mode: str, job: Path, out: Path) -> None:
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    work = json.loads(job.read_text())
    pairs: list[Pair] = [(c, q) for c, q in work["pairs"]]
    options = {
        "prefix_caching": mode != "vllm-nocache",
        "dtype": work["dtype"],
        "speculative_tokens": LOOKUP_TOKENS if mode == "vllm-lookup" else 0,
    }
    resolved = resolve(backend="vllm", engine_options=options)
    started = time.perf_counter()
    scoring = session(resolved)
    report: dict[str, Any] = {"start_s": time.perf_counter() - started}
    engine, scorer = scoring.engine, recall_scorer(scoring)
    question = scorer.judge.question
    judge(engine, question, pairs[:2])  # compiles the yes/no grammar once, outside the timings
    from benchmarks.speed.engine_profile import bare_seconds, profiled

    with profiled(engine) as profile:
        report["claims"], report["extract_s"] = timed(extract_claims, scorer, work["texts"])
    report["generations"] = len(profile.generated)
    report["generated"] = sum(n for _, n in profile.generated)
    if mode == "vllm":  # the decode efficiency is reported for the engine's defaults
        report["extract_bare_s"] = bare_seconds(engine, profile.generated)
    p_yes, report["judge_s"] = timed(judge, engine, question, pairs)
    report["p_yes"] = p_yes
    llm = cast(Any, engine).llm  # the vLLM engine's own LLM, outside the Engine protocol
    if mode == "vllm-nocache":
        bare = SamplingParams(temperature=0.0, max_tokens=1)
        inputs = [TokensPrompt(prompt_token_ids=ids) for ids in work["raw_inputs"]]
        llm.generate(inputs[:2], bare, use_tqdm=False)
        _, report["raw_s"] = timed(lambda: llm.generate(inputs, bare, use_tqdm=False))
    if mode == "vllm":
        report["scaling"] = []
        for name, shape in work["scaling"]:
            llm.reset_prefix_cache()
            _, seconds = timed(judge, engine, question, [(c, q) for c, q in shape])
            report["scaling"].append([name, seconds])
    scoring.close()
    out.write_text(json.dumps(report))


def run_vllm(mode: str, work: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job.write_text(json.dumps(work))
        cmd = [sys.executable, __file__, "--worker", mode, "--job", str(job), "--out", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        result: dict[str, Any] = json.loads(out.read_text())
        return result


# Memory of the bulk runner ---------------------------------------------------------------


def peak_memory_mib(n: int) -> float:
    """Peak RSS of `offline-recall score` over n synthetic rows (fake engine), in MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.jsonl"
        with data.open("w") as f:
            for i in range(n):
                row = {
                    "id": i,
                    "groundTruth": f"Item {i} has a claim. It has a second claim {i}.",
                    "context": [f"Item {i} has a claim.", "Unrelated text " * 20],
                }
                f.write(json.dumps(row) + "\n")
        # VmHWM, the peak resident set of this process image: it starts afresh at exec,
        # unlike ru_maxrss, which a child inherits from the (much larger) benchmark process.
        # The installed `offline-recall` command runs inside that process, which then reads it.
        code = (
            "import runpy, sys\nsys.argv = sys.argv[1:]\n"
            "try: runpy.run_path(sys.argv[0], run_name='__main__')\nexcept SystemExit: pass\n"
            "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
            "print(status.split()[0])"
        )
        command = shutil.which("offline-recall", path=str(Path(sys.executable).parent))
        if command is None:
            raise SystemExit("no offline-recall command beside this Python: pip install -e .")
        args = [command, "score", str(data), "--backend", "fake", "--no-cache"]
        args += ["--out", str(Path(tmp) / "r.jsonl")]
        done = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
        )
        return int(done.stdout.strip().splitlines()[-1]) / 1024


# The whole benchmark ---------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=24)
    parser.add_argument("--data", type=Path, default=ROSE)
    parser.add_argument(
        "--dtype", choices=("bfloat16", "float32"), help="vLLM's [default: the engine's here]"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--job", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.dtype = args.dtype or native_dtype()
    if args.worker:
        vllm_worker(args.worker, args.job, args.out)
        return

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    load_at_start = os.getloadavg()[0]
    items = load_items(args.data, args.items)
    texts = [i["ground_truth"] for i in items]
    hf_scoring = session(resolve(backend="transformers"))
    hf, scorer = hf_scoring.engine, recall_scorer(hf_scoring)
    bare: Any = hf  # the transformers engine's model and chat template, outside the protocol
    question = scorer.judge.question
    extracted, hf_extract_s = timed(extract_claims, scorer, texts)
    pairs: list[Pair] = [
        (item["context"], claim)
        for item, claims in zip(items, extracted, strict=True)
        if claims is not None
        for claim in dict.fromkeys(claims)
    ]
    raw_inputs, noncached_tokens, prompt_tokens = split_tokens(bare.chat, question, pairs)

    scaling_shapes = [
        (f"claims={k}, context~400 tok", synthetic(items[i:], k, 400))
        for i, k in enumerate((1, 4, 16, 64))
    ] + [
        (f"context~{c} tok, claims=8", synthetic(items[4 + i :], 8, c))
        for i, c in enumerate((100, 400, 1600))
    ]

    timings: dict[str, float] = {}
    naive = create_engine("transformers", options={"reuse_prefix": False})
    _, timings["hf-naive"] = timed(judge, naive, question, pairs)
    naive.close()
    del naive
    hf_p, timings["hf-reuse"] = timed(judge, hf, question, pairs)
    raw_hf_s = 0.0
    import torch

    with torch.inference_mode():
        started = time.perf_counter()
        for ids in raw_inputs:
            bare.model(input_ids=torch.tensor([ids]))
        raw_hf_s = time.perf_counter() - started
    hf_scaling = []
    for name, shape in scaling_shapes:
        _, seconds = timed(judge, hf, question, shape)
        hf_scaling.append((name, seconds))
    hf_scoring.close()
    del hf, bare, scorer, hf_scoring

    work = {
        "texts": texts,
        "pairs": pairs,
        "raw_inputs": raw_inputs,
        "scaling": scaling_shapes,
        "dtype": args.dtype,
    }
    nocache = run_vllm("vllm-nocache", work)
    full = run_vllm("vllm", work)
    lookup = run_vllm("vllm-lookup", work)
    timings["vllm-nocache"], timings["vllm"] = nocache["judge_s"], full["judge_s"]
    timings["vllm-lookup"] = lookup["judge_s"]
    extract_s = {
        "hf-naive": hf_extract_s,
        "hf-reuse": hf_extract_s,
        "vllm-nocache": nocache["extract_s"],
        "vllm": full["extract_s"],
        "vllm-lookup": lookup["extract_s"],
    }
    raw_s = {"hf": raw_hf_s, "vllm": nocache["raw_s"]}
    agree = max(abs(a - b) for a, b in zip(full["p_yes"], hf_p, strict=True))

    n, v = len(items), len(pairs)
    print(
        f"{n} items, {v} verdicts, {prompt_tokens} prompt tokens "
        f"({noncached_tokens} not shared between a context's prompts); "
        f"max |P(yes) vLLM - transformers| = {agree:.1e}"
    )
    print()
    print("| mode | extract s | judge s | items/s | verdicts/s | prompt tok/s | efficiency |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, judge_s in timings.items():
        engine = "vllm" if mode.startswith("vllm") else "hf"
        limit = raw_s[engine]
        print(
            f"| {mode} | {extract_s[mode]:.1f} | {judge_s:.1f} | "
            f"{n / (extract_s[mode] + judge_s):.3f} | {v / judge_s:.1f} | "
            f"{prompt_tokens / judge_s:.0f} | {limit / judge_s:.0%} |"
        )
    for engine, seconds in raw_s.items():
        print(
            f"| raw {engine} | | {seconds:.1f} | | {v / seconds:.1f} | "
            f"{noncached_tokens / seconds:.0f} (non-cached) | 100% |"
        )
    base = n / (extract_s["hf-naive"] + timings["hf-naive"])
    print()
    for mode in ("vllm", "vllm-lookup"):
        best = n / (extract_s[mode] + timings[mode])
        print(
            f"{mode} items/s / naive baseline items/s = {best / base:.1f}x "
            f"(every verdict a model call); extraction alone (the shipped profile asks the "
            f"model no verdict): {extract_s['hf-naive'] / extract_s[mode]:.1f}x"
        )
    same = sum(a == b for a, b in zip(full["claims"], lookup["claims"], strict=True))
    print(
        f"verdicts alone: {timings['hf-naive'] / timings['vllm']:.1f}x; "
        f"vLLM engine start {full['start_s']:.0f} s (not counted); claims with prompt lookup "
        f"identical to the default's for {same} of {n} items"
    )
    print(
        f"extraction decode (vllm): {full['generated'] / full['extract_s']:.0f} generated tok/s "
        f"({full['generated']} tokens, {full['generations']} generations in one batch); the "
        f"same tokens bare (no grammar, same batch): "
        f"{full['generated'] / full['extract_bare_s']:.0f} tok/s; efficiency "
        f"{full['extract_bare_s'] / full['extract_s']:.0%}"
    )
    print(
        f"one-minute load average: {load_at_start:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} after the vLLM modes; vLLM dtype {args.dtype}"
    )
    print()
    print("| one item | hf-reuse s | vllm s |")
    print("|---|---:|---:|")
    for (name, hf_s), (_, vllm_s) in zip(hf_scaling, full["scaling"], strict=True):
        print(f"| {name} | {hf_s:.2f} | {vllm_s:.2f} |")
    print()
    small, large = peak_memory_mib(1_000), peak_memory_mib(10_000)
    print("| bulk runner (fake engine) | peak RSS MiB |")
    print("|---|---:|")
    print(f"| 1,000 items | {small:.0f} |")
    print(f"| 10,000 items | {large:.0f} (+{large / small - 1:.0%}) |")


if __name__ == "__main__":
    main()
