"""Context relevance against known relevance: does a chunk's level follow how it relates to
the question and its answer?

    python benchmarks/quality/relevance_quality.py [--data DIR] [--backend transformers|vllm|fake]

On ClapNQ dev (answerable; see /work/shared/data/clapnq/NOTES.md) each question's reference
answer is the response, and three kinds of chunk are judged: the gold sentences the annotators
wrote the answer from (relevant), the passage's other sentences (in between: passages are
redundant), and another question's passage (irrelevant). Prints, for the shipped scorer and for
word overlap (the share of the question's and answer's content words found in the chunk): the
AUROC of gold sentences against the other question's passage and against the unselected
sentences, the balanced accuracy of "relevant" (high or medium) on gold against other, each
kind's share of levels, and the mean score of a run whose context is one kind. Rows are the
held-out half (odd-numbered items, left out of the shipped profile's fit;
scripts/build_relevance_profile.py) and all items.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_metrics import auroc, balanced_accuracy, tune_threshold
from offline_recall.judging.signals import word_overlap
from offline_recall.metrics.relevance import ContextRelevanceScorer, Level, RelevanceResult
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.results import ScorerInput

RELEVANCE = "context-relevance-scorer"
DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
KINDS = {
    "gold": "contexts_gold_sentences",
    "unselected": "contexts_unselected_sentences",
    "other": "contexts_other_question_passage",
}


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def section(name: str, items: list[dict[str, object]], scorer: ContextRelevanceScorer) -> list[str]:
    results: dict[str, list[RelevanceResult]] = {}
    overlap: dict[str, list[float]] = {}
    for kind, field in KINDS.items():
        runs = [
            ScorerInput(input=i["question"], output=i["reference"], context=i[field])
            for i in items
            if i[field]
        ]
        results[kind] = scorer.run_many(runs)
        overlap[kind] = [
            word_overlap(chunk, f"{r.input}\n{r.output}") for r in runs for chunk in r.context or []
        ]
    probs = {k: [v.probability for r in rs for v in r.verdicts] for k, rs in results.items()}
    levels = {k: Counter(v.level for r in rs for v in r.verdicts) for k, rs in results.items()}
    rows = []
    for rule, scores, cut in (
        ("shipped scorer", probs, scorer.threshold),
        ("word overlap", overlap, None),
    ):
        gold, other, unselected = scores["gold"], scores["other"], scores["unselected"]
        truth = [1] * len(gold) + [0] * len(other)
        at = cut if cut is not None else tune_threshold(truth, gold + other)
        shares = ""
        means = ""
        if rule == "shipped scorer":
            shares = " | ".join(
                "/".join(f"{levels[k][lv] / max(1, sum(levels[k].values())):.2f}" for lv in Level)
                for k in KINDS
            )
            means = " / ".join(
                _number(sum(r.score or 0.0 for r in rs) / max(1, len(rs)))
                for rs in results.values()
            )
        else:
            shares = " | ".join("" for _ in KINDS)
            means = ""
        rows.append(
            f"| {name} | {rule} | {len(items)} | {_number(auroc(truth, gold + other))} "
            f"| {_number(auroc([1] * len(gold) + [0] * len(unselected), gold + unselected))} "
            f"| {_number(balanced_accuracy(truth, gold + other, at))} | {shares} | {means} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--backend", default="transformers")
    args = parser.parse_args()
    path = args.data / "clapnq" / "e2e_answerable_dev.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    resolved = resolve(backend=args.backend, scorers=[RELEVANCE])
    spec = resolved.spec
    scoring = session(resolved)
    try:
        scorer = scoring.scorers[RELEVANCE]
        assert isinstance(scorer, ContextRelevanceScorer)
        setup = spec.scorer(RELEVANCE)
        print(
            f"model {spec.model_fingerprint}, engine {args.backend}, prompt "
            f"{setup.setup.prompt_version}, judge profile {setup.profile_origin.value} "
            f"[{setup.setup.judge_profile.digest}]"
        )
        print(
            "| ClapNQ dev items | rule | items | AUROC gold vs other | AUROC gold vs unselected "
            "| balanced accuracy gold vs other | levels of gold (h/m/l/n) | of unselected "
            "| of other | mean score gold / unselected / other |"
        )
        print("|---|---|---:|---:|---:|---:|---|---|---|---|")
        for name, chosen in (("held-out (odd)", items[1::2]), ("all", items)):
            for row in section(name, chosen, scorer):
                print(row)
    finally:
        scoring.close()


if __name__ == "__main__":
    main()
