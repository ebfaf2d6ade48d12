"""Does context precision follow known relevance, in its chunk verdicts and its ranking score?

    python benchmarks/quality/precision_quality.py [--data DIR] [--backend transformers|vllm|fake]

On ranked lists built from the labelled data (benchmarks/quality/precision_data.py: ClapNQ gold
passages and WiCE oracle chunks among the nearest other items' chunks, so each list's true
average precision is known), prints per set, for the shipped scorer and for word overlap (the
share of the question's and answer's content words found in the chunk, cut at its best
threshold): chunk AUROC and balanced accuracy, and the correlation and mean absolute error of
each list's score with its true average precision. `--data` takes any folder with the same
file names, such as a held-out split.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.precision_data import RankedList, clapnq_lists, wice_lists
from benchmarks.quality.quality_data import DATA
from benchmarks.quality.quality_metrics import (
    auroc,
    balanced_accuracy,
    correlations,
    tune_threshold,
)
from offline_recall import PrecisionResult
from offline_recall.judging.signals import word_overlap
from offline_recall.metrics.precision import ContextPrecisionScorer, average_precision
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.results import ScorerInput

PRECISION = "context-precision-scorer"


def scored(scorer: ContextPrecisionScorer, lists: list[RankedList]) -> list[PrecisionResult]:
    runs = [ScorerInput(input=r.question, ground_truth=r.answer, context=r.chunks) for r in lists]
    return scorer.run_many(runs)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def section(
    name: str, lists: list[RankedList], results: list[PrecisionResult], threshold: float
) -> list[str]:
    truth = [int(label) for r in lists for label in r.relevant]
    mine = [v.probability for res in results for v in res.verdicts]
    overlap = [
        word_overlap(chunk, f"{r.question or ''} {r.answer}") for r in lists for chunk in r.chunks
    ]
    cut = tune_threshold(truth, overlap)
    true_ap = [average_precision(r.relevant) for r in lists]
    ours = [res.score or 0.0 for res in results]
    theirs, k = [], 0
    for r in lists:
        theirs.append(average_precision([o >= cut for o in overlap[k : k + len(r.chunks)]]))
        k += len(r.chunks)
    rows = []
    for label, probs, at, scores in (
        ("shipped scorer", mine, threshold, ours),
        ("word overlap", overlap, cut, theirs),
    ):
        c = correlations(true_ap, scores)
        rows.append(
            f"| {name} | {label} | {len(lists)} / {len(truth)} | {_number(auroc(truth, probs))} "
            f"| {_number(balanced_accuracy(truth, probs, at))} | {_number(c['Pearson'])} "
            f"| {_number(c['Spearman'])} | {_number(c['MAE'])} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--backend", default="transformers")
    args = parser.parse_args()
    resolved = resolve(backend=args.backend, scorers=[PRECISION])
    spec = resolved.spec
    scoring = session(resolved)
    try:
        scorer = scoring.scorers[PRECISION]
        assert isinstance(scorer, ContextPrecisionScorer)
        setup = spec.scorer(PRECISION)
        print(
            f"model {spec.model_fingerprint}, engine {args.backend}, prompt "
            f"{setup.setup.prompt_version}, judge profile {setup.profile_origin.value} "
            f"[{setup.setup.judge_profile.digest}]"
        )
        print(
            "| set | rule | lists / chunks | chunk AUROC | chunk balanced accuracy "
            "| Pearson with true AP | Spearman | MAE |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, lists in (("ClapNQ", clapnq_lists(args.data)), ("WiCE", wice_lists(args.data))):
            for row in section(name, lists, scored(scorer, lists), scorer.threshold):
                print(row)
    finally:
        scoring.close()


if __name__ == "__main__":
    main()
