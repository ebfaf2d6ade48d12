"""The columns of the quality benchmark: word overlap, model P(yes), one JSON call, shipped.

Each variant says how it scores a (context, claim) pair, a ground truth end to end against
its contexts, and how it splits a text into claims. See `quality.py` for what each one is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks.quality_judges import (
    OneCall,
    Pair,
    attributed_share,
    max_over_pieces,
    recall_of_claims,
    run_shipped,
)
from benchmarks.quality_metrics import overlap_recall, sentences
from offline_recall import ContextRecallScorer, ModelManifest
from offline_recall.backends import Failed
from offline_recall.scorer import dedupe_claims
from offline_recall.signals import word_overlap

Item = tuple[str, Sequence[str]]  # (ground truth, contexts)


@dataclass
class Variant:
    """One column: how it scores a (context, claim) pair, an item end to end, and extracts."""

    name: str
    threshold: float
    pairs: Callable[[Sequence[Pair]], list[float | None]]
    recall: Callable[[Sequence[Item]], list[float | None]]
    extract: Callable[[Sequence[str]], list[list[str] | None]] | None


def overlap_variant(threshold: float) -> Variant:
    return Variant(
        name="word overlap",
        threshold=threshold,
        pairs=lambda pairs: [word_overlap(c, q) for c, q in pairs],
        recall=lambda items: [overlap_recall(g, c, threshold) for g, c in items],
        extract=lambda texts: [sentences(t) for t in texts],
    )


def model_variants(scorer: ContextRecallScorer, manifest: ModelManifest) -> list[Variant]:
    """The shipped scorer, P(yes) and one JSON call (vLLM only), sharing one engine."""
    backend = scorer.backend
    claims_of: dict[str, list[str] | None] = {}  # ground truth -> the shipped scorer's claims

    def shipped_recall(items: Sequence[Item]) -> list[float | None]:
        results = run_shipped(scorer, items)
        for (ground_truth, _), r in zip(items, results, strict=True):
            claims_of[ground_truth] = None if r.score is None else list(r.claims)
        return [r.score for r in results]

    def p_yes_recall(items: Sequence[Item]) -> list[float | None]:
        missing = [i for i in items if i[0] not in claims_of]
        if missing:
            shipped_recall(missing)
        return recall_of_claims(
            backend.judge,
            backend,
            [claims_of[g] for g, _ in items],
            [c for _, c in items],
            backend.info.threshold,
        )

    def extract(texts: Sequence[str]) -> list[list[str] | None]:
        found = backend.extract_claims(texts)
        return [None if isinstance(f, Failed) else dedupe_claims(f) for f in found]

    shipped = Variant(
        name="shipped",
        threshold=scorer.threshold,
        pairs=lambda pairs: list(max_over_pieces(scorer.support, backend, pairs)),
        recall=shipped_recall,
        extract=extract,
    )
    p_yes = Variant(
        name=f"model P(yes), prompt {backend.info.prompt_version}",
        threshold=backend.info.threshold,
        pairs=lambda pairs: list(max_over_pieces(backend.judge, backend, pairs)),
        recall=p_yes_recall,
        extract=None,
    )
    llm = getattr(backend, "llm", None)
    if llm is None:
        return [shipped, p_yes]
    one_call = OneCall(llm, manifest)
    memo: dict[tuple[str, tuple[str, ...]], float | None] = {}

    def one_call_recall(items: Sequence[Item]) -> list[float | None]:
        keys = [(g, tuple(c)) for g, c in items]
        todo = list(dict.fromkeys(k for k in keys if k not in memo))
        for key, found in zip(todo, one_call.run(todo), strict=True):
            memo[key] = attributed_share(found)
        return [memo[k] for k in keys]

    def one_call_extract(texts: Sequence[str]) -> list[list[str] | None]:
        found = one_call.run([(t, [t]) for t in texts])
        return [None if isinstance(f, Failed) else [s.statement for s in f] for f in found]

    return [
        shipped,
        p_yes,
        Variant(
            name="one JSON call",
            threshold=1.0,
            pairs=lambda pairs: one_call_recall([(q, [c]) for c, q in pairs]),
            recall=one_call_recall,
            extract=one_call_extract,
        ),
    ]
