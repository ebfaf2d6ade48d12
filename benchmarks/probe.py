"""Does the model's hidden state know what its yes/no logits do not? A linear probe on WiCE.

    python benchmarks/probe.py [--limit 400] [--data FILE]

For each WiCE dev oracle-chunk pair, the embedded model (transformers, float32) reads the judge
prompt with the claim against its three best evidence sentences; the hidden state at the answer
position of several layers is kept, with the margin log P(yes) - log P(no). Logistic probes on
each layer, alone and beside the lexical signals, are scored by AUROC (max over a claim's
chunks) with 5-fold cross-validation grouped by claim, next to the margin and the lexical rule.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.recall import recall_scorer
from offline_recall import LEXICAL_SIGNALS, evidence, lexical_signals, read_labelled, resolve_spec

DATA = (
    Path(__file__).resolve().parents[2] / "shared/data/wice/attribution_claim_oraclechunk_dev.jsonl"
)
LAYERS = (6, 12, 18, 24, 30)
Matrix = NDArray[np.float64]


def claim_auroc(scores: Matrix, labels: list[bool], groups: list[str]) -> float:
    best: dict[str, float] = {}
    label: dict[str, bool] = {}
    for s, y, g in zip(scores, labels, groups, strict=True):
        best[g] = max(best.get(g, -np.inf), float(s))
        label[g] = y
    return float(roc_auc_score([label[g] for g in best], list(best.values())))


def cross_validated(x: Matrix, labels: list[bool], groups: list[str], c: float) -> float:
    y = np.array(labels)
    out = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(x, y, groups):
        probe = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=3000))
        out[test] = probe.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    return claim_auroc(out, labels, groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=400, help="First N pairs")
    args = parser.parse_args()

    pairs = read_labelled(args.data)[0][: args.limit]
    scoring = resolve_spec(engine="transformers").build()  # float32 on CPU
    question = recall_scorer(scoring).judge.question
    engine: Any = scoring.engine  # its model and chat template are outside the Engine protocol
    model, chat = engine.model, engine.chat
    yes_id, no_id = chat.answer_token(question.yes), chat.answer_token(question.no)

    states, margins = [], []
    started = time.perf_counter()
    with torch.inference_mode():
        for p in pairs:
            ids = chat.ids(question.prompt(evidence(p.context, p.claim, 3), p.claim))
            out = model(torch.tensor([ids]), output_hidden_states=True)
            logp = torch.log_softmax(out.logits[0, -1], dim=-1)
            margins.append(float(logp[yes_id] - logp[no_id]))
            states.append(np.stack([out.hidden_states[i][0, -1].numpy() for i in LAYERS]))
    per_pair = (time.perf_counter() - started) / len(pairs)

    labels = [p.label for p in pairs]
    groups = [p.group for p in pairs]
    hidden = np.array(states, dtype=np.float64)
    lexical = np.array(
        [[lexical_signals(p.context, p.claim)[s] for s in LEXICAL_SIGNALS] for p in pairs]
    )
    print(f"{len(pairs)} pairs, {len(set(groups))} claims; {per_pair:.2f} s per pair forward")
    print("| judge | CV AUROC (claims) |")
    print("|---|---:|")
    print(
        f"| margin log P(yes) - log P(no) | {claim_auroc(np.array(margins), labels, groups):.3f} |"
    )
    print(f"| lexical signals (logistic) | {cross_validated(lexical, labels, groups, 1.0):.3f} |")
    for i, layer in enumerate(LAYERS):
        for c in (0.001, 0.01):
            alone = cross_validated(hidden[:, i], labels, groups, c)
            both = cross_validated(np.hstack([hidden[:, i], lexical]), labels, groups, c)
            print(f"| probe, layer {layer}, C={c} | {alone:.3f} (with lexical {both:.3f}) |")


if __name__ == "__main__":
    main()
