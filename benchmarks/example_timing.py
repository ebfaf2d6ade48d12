"""Time each stage of scoring the bundled example dataset on the embedded model.

    python benchmarks/example_timing.py [--data FILE] [--model NAME]

Prints a Markdown table: model load (weights verified, converted copy loaded), claim
extraction, verdicts, and the end-to-end `run_many` over the whole file.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from offline_recall import ContextRecallOptions, create_context_recall_scorer, load_manifest
from offline_recall.backends import create_backend
from offline_recall.cli import recorded_context
from offline_recall.dataset import Row
from offline_recall.evals import Tally
from offline_recall.formats import open_dataset

EXAMPLE = Path(__file__).resolve().parents[1] / "offline_recall" / "examples" / "example.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=EXAMPLE)
    parser.add_argument("--model", default="smollm2-135m-instruct")
    args = parser.parse_args()
    rows = [r for r in open_dataset(args.data).rows() if isinstance(r, Row)]

    started = time.perf_counter()
    backend = create_backend("transformers", load_manifest(args.model))
    load_s = time.perf_counter() - started

    texts = [str(r.ground_truth) for r in rows]
    started = time.perf_counter()
    extracted = backend.extract_claims(texts)
    extract_s = time.perf_counter() - started
    claims = sum(len(c) for c in extracted if isinstance(c, list))

    pairs = [
        (chunk, claim)
        for row, found in zip(rows, extracted, strict=True)
        if isinstance(found, list)
        for chunk in row.context
        for claim in found
    ]
    started = time.perf_counter()
    backend.judge(pairs)
    judge_s = time.perf_counter() - started
    prompt_tokens = sum(backend.count_tokens(c) + backend.count_tokens(q) for c, q in pairs)

    scorer = create_context_recall_scorer(
        backend, ContextRecallOptions(context_extractor=recorded_context)
    )
    runs = [{"output": r.context, "groundTruth": r.ground_truth} for r in rows]
    started = time.perf_counter()
    results = scorer.run_many(runs)
    total_s = time.perf_counter() - started
    tally = Tally()
    for result in results:
        tally.add(result)
    summary = tally.summary()

    print("| stage | seconds | work | rate |")
    print("|---|---:|---|---:|")
    print(f"| load model | {load_s:.1f} | verify + load cached safetensors | |")
    print(
        f"| extract claims | {extract_s:.1f} | {len(texts)} ground truths -> {claims} claims "
        f"| {len(texts) / extract_s:.2f} items/s |"
    )
    print(
        f"| judge | {judge_s:.1f} | {len(pairs)} (chunk, claim) pairs, ~{prompt_tokens} "
        f"context+claim tokens | {len(pairs) / judge_s:.1f} verdicts/s |"
    )
    print(
        f"| end to end (run_many) | {total_s:.1f} | {len(runs)} items, "
        f"{summary.failed} failed, mean recall {summary.mean} | {len(runs) / total_s:.2f} items/s |"
    )


if __name__ == "__main__":
    main()
