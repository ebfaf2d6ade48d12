"""Where does the time go when the embedded model scores the bundled example dataset?

    python benchmarks/speed/example_timing.py [--data FILE] [--model NAME]

Prints a Markdown table: model load (weights verified, converted copy loaded), claim
extraction, verdicts (the model's P(yes) per chunk and claim), and the end-to-end
`run_many` over the whole file on a fresh scorer (it extracts the claims again).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from statistics import fmean

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.recall import extract_claims, model_p_yes, recall_scorer
from offline_recall import Status
from offline_recall.data.dataset import Row, open_dataset
from offline_recall.runs.score import resolve, session
from offline_recall.runs.session import Scoring

EXAMPLE = Path(__file__).resolve().parents[2] / "offline_recall" / "examples" / "example.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=EXAMPLE)
    parser.add_argument("--model", default="smollm2-135m-instruct")
    args = parser.parse_args()
    rows = [r for r in open_dataset(args.data).rows() if isinstance(r, Row)]

    resolved = resolve(model=args.model, backend="transformers")
    started = time.perf_counter()
    scoring = session(resolved)
    load_s = time.perf_counter() - started
    engine, extractor = scoring.engine, recall_scorer(scoring)

    texts = [str(r.ground_truth) for r in rows]
    started = time.perf_counter()
    extracted = extract_claims(extractor, texts)
    extract_s = time.perf_counter() - started
    claims = sum(len(c) for c in extracted if c is not None)

    pairs = [
        (chunk, claim)
        for row, found in zip(rows, extracted, strict=True)
        if found is not None
        for chunk in row.context
        for claim in found
    ]
    started = time.perf_counter()
    model_p_yes(engine, extractor.judge.question, pairs)
    judge_s = time.perf_counter() - started
    prompt_tokens = sum(engine.count_tokens(c) + engine.count_tokens(q) for c, q in pairs)

    scorer = recall_scorer(Scoring.on(resolved, engine))  # remembers nothing yet
    runs = [{"input": r.input, "ground_truth": r.ground_truth, "context": r.context} for r in rows]
    started = time.perf_counter()
    results = scorer.run_many(runs)
    total_s = time.perf_counter() - started
    scored = [r.score for r in results if r.score is not None]
    failed = sum(r.status == Status.ERROR for r in results)
    mean = fmean(scored) if scored else None
    scoring.close()

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
        f"{failed} failed, mean recall {mean} | {len(runs) / total_s:.2f} items/s |"
    )


if __name__ == "__main__":
    main()
