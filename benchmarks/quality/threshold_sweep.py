"""Which threshold should a judge profile count claims at, by the end-to-end objective on dev?

    python benchmarks/quality/threshold_sweep.py [--profile FILE] [--backend vllm] [--data DIR]

The threshold that maximises balanced accuracy on labelled pairs is not the one that best
estimates a recall. With the scorer's own claims (extracted once, by the run spec's model and
prompts), this prints, per threshold, what the profile's decided score gives end to end: RoSE
Spearman with human recall, WiCE claim-vs-article AUROC (all vs the rest), ClapNQ gold vs other
passage AUROC; and WiCE whole-article balanced accuracy at that threshold. The expected recall
(the mean of the claims' probabilities, no threshold) is printed first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import fmean

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import quality_data as data
from benchmarks.quality.quality_metrics import auroc, balanced_accuracy, spearman
from benchmarks.quality.recall import extract_claims, recall_scorer
from offline_recall.engines import Failed
from offline_recall.judging.profile import load_profile
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.text import split_sentences

THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55)


def _best(
    scorer: ContextRecallScorer, contexts: list[list[str]], claims: list[list[str]]
) -> list[list[float]]:
    """Each item's claims' probabilities, each at its best context (pieces as the scorer cuts)."""
    pairs = [(c, x) for ctx, cl in zip(contexts, claims, strict=True) for x in cl for c in ctx]
    found = dict(zip(pairs, scorer.assess(pairs), strict=True))
    out = []
    for ctx, cl in zip(contexts, claims, strict=True):
        probs = []
        for x in cl:
            got = [found[(c, x)] for c in ctx]
            probs.append(max(a.probability for a in got if not isinstance(a, Failed)))
        out.append(probs)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--backend", default="vllm")
    parser.add_argument("--data", type=Path, default=data.DATA)
    args = parser.parse_args()
    recall = ContextRecallScorer.id
    profiles = {recall: load_profile(args.profile)} if args.profile else None
    resolved = resolve(backend=args.backend, profiles=profiles)
    spec = resolved.spec
    scoring = session(resolved)
    try:
        scorer = recall_scorer(scoring)
        rose = data.rose_e2e(args.data / data.ROSE_E2E, None, 0)
        wice = data.wice_e2e(args.data / data.WICE_E2E, None, 0)
        clap = data.clapnq(args.data / data.CLAPNQ_E2E, None, 0)
        article = data.attribution(args.data / data.WICE_ARTICLE, None, 0)
        texts = list(dict.fromkeys(r.reference for r in [*rose, *wice, *clap.gold]))
        extracted = dict(zip(texts, extract_claims(scorer, texts), strict=True))

        def claims(rows: list[data.RecallRow]) -> list[list[str]]:
            return [extracted[r.reference] or split_sentences(r.reference) for r in rows]

        p_rose = _best(scorer, [list(r.contexts) for r in rose], claims(rose))
        p_wice = _best(scorer, [list(r.contexts) for r in wice], claims(wice))
        clap_rows = clap.gold + clap.other
        p_clap = _best(scorer, [list(r.contexts) for r in clap_rows], claims(clap_rows))
        p_article = [
            max(p)
            for p in _best(scorer, [[r.context] for r in article], [[r.claim] for r in article])
        ]
    finally:
        scoring.close()
    human = [r.target for r in rose]
    wice_all = [float(r.target == 2) for r in wice]
    clap_gold = [1.0] * len(clap.gold) + [0.0] * len(clap.other)
    labels = [r.label for r in article]

    def row(
        name: str, score: list[float], s_wice: list[float], s_clap: list[float], bacc: str
    ) -> str:
        return (
            f"| {name} | {spearman(human, score):.3f} | {auroc(wice_all, s_wice):.3f} "
            f"| {auroc(clap_gold, s_clap):.3f} | {bacc} |"
        )

    setup = spec.scorer(recall)
    print(
        f"model {spec.model_fingerprint}, prompt {setup.setup.prompt_version}, judge profile "
        f"[{setup.setup.judge_profile.digest}] (its own threshold "
        f"{setup.setup.judge_profile.threshold:.3f}); engine {args.backend}"
    )
    print("| rule | RoSE Spearman | WiCE e2e AUROC | ClapNQ AUROC | WiCE article BAcc |")
    print("|---|---:|---:|---:|---:|")
    print(
        row(
            "expected recall",
            [fmean(p) for p in p_rose],
            [fmean(p) for p in p_wice],
            [fmean(p) for p in p_clap],
            "n/a",
        )
    )
    for t in THRESHOLDS:

        def share(ps: list[list[float]], t: float = t) -> list[float]:
            return [sum(p >= t for p in item) / len(item) for item in ps]

        bacc = balanced_accuracy(labels, p_article, t)
        print(row(f"decided at {t}", share(p_rose), share(p_wice), share(p_clap), f"{bacc:.3f}"))


if __name__ == "__main__":
    main()
