"""Does the shipped judge read Korean better than counting shared words or character pairs?

    python benchmarks/quality/korean.py [--data FILE] [--model NAME] [--json FILE]

Data: KLUE-NLI dev (`../shared/data/klue/attribution_ko_dev.jsonl`: a Korean premise as the
context, an annotator's hypothesis as the claim, label 1 = entailment). Every row is read by
three judges, and each is reported by AUROC and balanced accuracy:

  word overlap        `word_overlap`: the share of the claim's space-separated words found in
                      the context; balanced accuracy at its best threshold on these rows
  character bigrams   the share of the claim's character pairs (spaces dropped) found in the
                      context; balanced accuracy at its best threshold on these rows
  shipped judge       the shipped context recall rule of the model (its judge profile) over the
                      lexical signals; balanced accuracy at the profile's own threshold

The shipped rule needs no model call when its profile names lexical signals only (the
embedded model's does); a profile that asks the model is refused here. The best thresholds
of the two baselines are fitted on the rows they are measured on, an advantage the shipped
rule does not get.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality_data import attribution
from quality_metrics import auroc, balanced_accuracy, tune_threshold

from offline_recall.engines.manifests import load_manifest
from offline_recall.judging.profile import RECALL, find_profile
from offline_recall.judging.signals import lexical_signals, word_overlap
from offline_recall.paths import CACHE_ENV

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "klue" / "attribution_ko_dev.jsonl"


def bigram_overlap(context: str, claim: str) -> float:
    """The share of the claim's character pairs (spaces dropped) that the context holds."""

    def pairs(text: str) -> set[str]:
        joined = "".join(text.split())
        return {joined[i : i + 2] for i in range(len(joined) - 1)}

    wanted = pairs(claim)
    return len(wanted & pairs(context)) / len(wanted) if wanted else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--json", type=Path, default=None, help="also write the table here")
    args = parser.parse_args()

    rows = attribution(args.data, None, 0)
    labels = [r.label for r in rows]
    manifest = load_manifest(args.model)
    version = manifest.scorers[RECALL].prompt_version or manifest.prompt_version or ""
    # A fresh cache folder, so that a profile the user calibrated is not the one read.
    with tempfile.TemporaryDirectory() as empty:
        os.environ[CACHE_ENV] = empty
        profile = find_profile(RECALL, manifest.fingerprint, version, manifest.threshold).profile
    if profile.uses_model:
        raise SystemExit(f"the judge profile of {args.model} asks the model; this reads text only")

    started = time.perf_counter()
    judged = [profile.probability(lexical_signals(r.context, r.claim)) for r in rows]
    seconds = time.perf_counter() - started
    words = [word_overlap(r.context, r.claim) for r in rows]
    bigrams = [bigram_overlap(r.context, r.claim) for r in rows]

    table: dict[str, dict[str, float | None]] = {}
    for name, scores, threshold in (
        ("word overlap", words, tune_threshold(labels, words)),
        ("character bigrams", bigrams, tune_threshold(labels, bigrams)),
        ("shipped judge", judged, profile.threshold),
    ):
        table[name] = {
            "AUROC": auroc(labels, scores),
            "balanced accuracy": balanced_accuracy(labels, scores, threshold),
            "threshold": threshold,
            "supported share": sum(s >= threshold for s in scores) / len(scores),
        }

    print(f"{len(rows)} pairs ({sum(labels)} entailed) from {args.data.name}; ", end="")
    print(f"the judge's signals took {seconds:.1f} s")
    print(f"{'':20s} {'AUROC':>7s} {'bal. acc.':>9s} {'threshold':>9s} {'supported':>9s}")
    for name, metrics in table.items():
        cells = [f"{metrics[k]:.3f}" if metrics[k] is not None else "-" for k in metrics]
        print(f"{name:20s} {cells[0]:>7s} {cells[1]:>9s} {cells[2]:>9s} {cells[3]:>9s}")
    if args.json:
        args.json.write_text(json.dumps({"rows": len(rows), "table": table}, indent=2) + "\n")


if __name__ == "__main__":
    main()
