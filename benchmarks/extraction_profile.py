"""Where one extraction window's time goes on vLLM in process, and its decode efficiency.

    python benchmarks/extraction_profile.py [--items 24] [--prompt-version v4]

One window: the ground truths of `--items` RoSE dev items (the throughput benchmark's, seed 7)
extracted by the scorer in one pass on the vLLM engine. The engine runs its scheduler and
model in this process (the engine's default on CPU), so every step is timed where it runs:

  grammar set-up    compiling each request's JSON-schema grammar (thread pool, summed)
  schedule          the scheduler choosing each step's requests and tokens
  forward, prefill  the model's forward pass in steps that hold prompt tokens
  forward, decode   the model's forward pass in steps of generated tokens only
  bitmask + sample  filling the grammar's token masks and sampling
  update            the scheduler reading the step's tokens (grammar advance included)
  engine front end  vLLM's own work around the steps (inputs, detokenising, outputs)
  our Python        the scorer's own work: prompts, chat tokens, parsing, the rules

Then the decode efficiency: the same prompts run bare (no grammar, the same number of tokens
generated per prompt, end of sequence ignored) in one batch, the engine's limit for this work;
efficiency = bare seconds / extraction seconds, and the generated tokens/s of each. And the
engine's start, measured on its own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.engine_profile import bare_seconds, profiled
from benchmarks.recall import extract_claims, recall_scorer
from benchmarks.throughput import ROSE, load_items
from offline_recall import ContextRecallScorer, resolve_spec


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=24)
    parser.add_argument("--data", type=Path, default=ROSE)
    parser.add_argument("--prompt-version", help="context recall's prompts [default: the model's]")
    parser.add_argument("--dtype", help="the vLLM engine's dtype [default: the engine's]")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    recall = ContextRecallScorer.id
    versions = {recall: args.prompt_version} if args.prompt_version else None
    options = {"dtype": args.dtype} if args.dtype else None
    spec = resolve_spec(engine="vllm", engine_options=options, prompt_versions=versions)
    started = time.perf_counter()
    scoring = spec.build()
    start_s = time.perf_counter() - started
    engine: Any = scoring.engine
    scorer = recall_scorer(scoring)
    texts = [i["ground_truth"] for i in load_items(args.data, args.items)]
    # The claim-list grammar's first compilation happens once per engine: outside the window.
    recall_scorer(spec.build_on(engine)).extract(["Warm-up sentence, which has two parts."])
    engine.llm.reset_prefix_cache()
    with profiled(engine) as profile:
        started = time.perf_counter()
        claims = extract_claims(scorer, texts)
        window_s = time.perf_counter() - started
    bare_s = bare_seconds(engine, profile.generated)
    scoring.close()

    s = profile.seconds
    steps = sum(
        s.get(k, 0.0)
        for k in ("schedule", "forward, prefill", "forward, decode", "bitmask + sample", "update")
    )
    rows = [
        ("grammar set-up (thread pool, summed)", s.get("grammar set-up", 0.0)),
        ("schedule", s.get("schedule", 0.0)),
        ("forward, prefill steps", s.get("forward, prefill", 0.0)),
        ("forward, decode steps", s.get("forward, decode", 0.0)),
        ("bitmask + sample", s.get("bitmask + sample", 0.0)),
        ("update (grammar advance included)", s.get("update", 0.0)),
        ("engine front end", s.get("engine, whole", 0.0) - steps),
        ("our Python", window_s - s.get("engine, whole", 0.0)),
    ]
    generated = sum(n for _, n in profile.generated)
    sizes = [n for n, prompt, _ in profile.steps if prompt == 0]
    prompts = sum(p for _, p, _ in profile.steps)
    print(
        f"prompt {scorer.setup.prompt_version}: {len(texts)} ground truths, "
        f"{len(profile.generated)} generations, {sum(len(c or []) for c in claims)} claims, "
        f"{prompts} prompt tokens computed, {generated} generated tokens; "
        f"{len(profile.steps)} steps ({len(sizes)} decode-only); engine start {start_s:.1f} s"
    )
    print()
    print("| part of the window | seconds | share |")
    print("|---|---:|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {seconds / window_s:.0%} |")
    print(f"| **window** | **{window_s:.2f}** | 100% |")
    print()
    if sizes:
        print(
            f"decode-only steps: batch size mean {statistics.mean(sizes):.1f}, median "
            f"{statistics.median(sizes):.0f}, max {max(sizes)}; under 8 requests in "
            f"{sum(n < 8 for n in sizes) / len(sizes):.0%} of them"
        )
    print(
        f"decode efficiency: extraction {generated / window_s:.0f} generated tok/s in "
        f"{window_s:.1f} s; the same tokens bare (no grammar, one batch) {generated / bare_s:.0f} "
        f"tok/s in {bare_s:.1f} s: {bare_s / window_s:.0%}"
    )


if __name__ == "__main__":
    main()
