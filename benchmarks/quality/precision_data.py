"""Labelled relevance for context precision, built from the labelled dev data by construction.

- ClapNQ: a question's answer was written from its passage, so that passage is relevant to
  the question and answer; the passages of other questions are not. Ranked lists put the gold
  passage at a known position among distractors, so each list's true average precision is
  known.
- WiCE: a supported claim's oracle chunks hold the sentences that support it (relevant); the
  chunks of other claims' articles hold none (not relevant). No question: the claim is the
  answer.

Distractors are the other items' chunks that share the most words with the question and
answer, as a retriever's near misses would: random ones are too easy to tell apart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.quality.quality_data import CLAPNQ_E2E, WICE_CHUNKS, read_jsonl
from offline_recall.judging.signals import word_overlap

DISTRACTORS = 3
SEED = 0


@dataclass(frozen=True)
class RankedList:
    """One question's retrieved chunks in order, with which are truly relevant."""

    id: str
    question: str | None
    answer: str
    chunks: list[str]
    relevant: list[bool]


def near_misses(query: str, candidates: Sequence[str], k: int) -> list[str]:
    """The `k` candidates sharing the largest share of the query's content words."""
    ranked = sorted(candidates, key=lambda c: -word_overlap(c, query))
    return ranked[:k]


def clapnq_lists(data: Path, distractors: int = DISTRACTORS) -> list[RankedList]:
    """Per ClapNQ question, its gold passage among the `distractors` other questions'
    passages nearest to it, at a position that cycles through every rank (item i puts it at
    rank i mod (k + 1))."""
    items = read_jsonl(data / CLAPNQ_E2E)
    passages = [item["contexts_full_passage"][0] for item in items]
    lists = []
    for i, item in enumerate(items):
        query = f"{item['question']} {item['reference']}"
        others = near_misses(query, [p for j, p in enumerate(passages) if j != i], distractors)
        at = i % (distractors + 1)
        chunks = [*others[:at], passages[i], *others[at:]]
        lists.append(
            RankedList(
                id=str(item["id"]),
                question=item["question"],
                answer=item["reference"],
                chunks=chunks,
                relevant=[k == at for k in range(len(chunks))],
            )
        )
    return lists


def wice_lists(data: Path, distractors: int = DISTRACTORS, seed: int = SEED) -> list[RankedList]:
    """Per supported WiCE claim, its oracle chunks and the `distractors` chunks of other
    claims nearest to it, shuffled with `seed`."""
    rows = read_jsonl(data / WICE_CHUNKS)
    by_claim: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_claim.setdefault(row["group"], []).append(row)
    rng = random.Random(seed)
    lists = []
    for claim_id, own in by_claim.items():
        if own[0]["label"] != 1:
            continue
        others = [r["context"] for r in rows if r["group"] != claim_id]
        foreign = near_misses(own[0]["claim"], others, distractors)
        chunks = [(r["context"], True) for r in own] + [(c, False) for c in foreign]
        rng.shuffle(chunks)
        lists.append(
            RankedList(
                id=claim_id,
                question=None,
                answer=own[0]["claim"],
                chunks=[c for c, _ in chunks],
                relevant=[r for _, r in chunks],
            )
        )
    return lists


def labelled_rows(lists: list[RankedList]) -> list[dict[str, Any]]:
    """Each chunk of each list as a labelled precision row `calibrate` reads."""
    return [
        {
            "group": f"{ranked.id}#{k}",
            "question": ranked.question,
            "answer": ranked.answer,
            "chunk": chunk,
            "label": int(relevant),
        }
        for ranked in lists
        for k, (chunk, relevant) in enumerate(zip(ranked.chunks, ranked.relevant, strict=True))
    ]
