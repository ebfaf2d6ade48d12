"""The labelled sets the quality benchmarks read: file names, typed rows, a seeded subset.

A data folder holds the files below under the same names (the dev split in `../shared/data/`,
or any other split laid out the same way). `--limit N` keeps N rows per file, chosen by a
seeded hash of each row's key: the same rows every run, and the same WiCE claims in all
three WiCE files (they share ids).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
"""The dev split's folder, the default `--data` of the benchmarks that read these sets."""

WICE_ARTICLE = "wice/attribution_claim_fullarticle_dev.jsonl"
WICE_CHUNKS = "wice/attribution_claim_oraclechunk_dev.jsonl"
WICE_E2E = "wice/e2e_claim_dev.jsonl"
KLUE = "klue/attribution_ko_dev.jsonl"
ROSE_ACUS = "rose/decomposition_acus_dev.jsonl"
ROSE_E2E = "rose/e2e_acu_recall_dev.jsonl"
CLAPNQ_E2E = "clapnq/e2e_answerable_dev.jsonl"
FILES = (WICE_ARTICLE, WICE_CHUNKS, WICE_E2E, ROSE_ACUS, ROSE_E2E, CLAPNQ_E2E)

RAW_LABELS = ("supported", "partially_supported", "not_supported")
EXPECTED_ORDER = {"none": 0, "some": 1, "all": 2}

T = TypeVar("T")


@dataclass(frozen=True)
class AttributionRow:
    """One claim against one context; `group` ties a claim's oracle chunks together."""

    id: str
    group: str
    claim: str
    context: str
    label: int  # 1 = supported
    label_raw: str


@dataclass(frozen=True)
class RecallRow:
    """A ground truth scored against retrieved contexts, with what a human says it should get.

    `target` is `human_recall` (RoSE) or the ordinal of `expected` (WiCE: none 0, some 1,
    all 2); ClapNQ rows carry none and are read twice, against two context conditions.
    """

    id: str
    reference: str
    contexts: tuple[str, ...]
    target: float | None = None


@dataclass(frozen=True)
class DecompositionRow:
    id: str
    text: str
    claims: tuple[str, ...]


@dataclass(frozen=True)
class ClapRows:
    gold: list[RecallRow]  # against the passage sentences the answer was written from
    other: list[RecallRow]  # against another question's passage


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise SystemExit(f"missing data file {path} (a data folder holds: {', '.join(FILES)})")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def subset(rows: Sequence[T], key: Callable[[T], str], limit: int | None, seed: int) -> list[T]:
    """The rows of the first `limit` keys in a seeded hash order, in file order; all if None.

    Rows sharing a key (a claim's oracle chunks) are kept or dropped together.
    """
    if limit is None:
        return list(rows)

    def rank(k: str) -> str:
        return hashlib.sha256(f"{seed}:{k}".encode()).hexdigest()

    keys = sorted({key(r) for r in rows}, key=rank)[:limit]
    kept = set(keys)
    return [r for r in rows if key(r) in kept]


def attribution(path: Path, limit: int | None, seed: int) -> list[AttributionRow]:
    rows = [
        AttributionRow(
            id=r["id"],
            group=r.get("group", r["id"]),
            claim=r["claim"],
            context=r["context"],
            label=int(r["label"]),
            label_raw=r["label_raw"],
        )
        for r in read_jsonl(path)
    ]
    return subset(rows, lambda r: r.group, limit, seed)


def wice_e2e(path: Path, limit: int | None, seed: int) -> list[RecallRow]:
    rows = [
        RecallRow(
            id=r["id"],
            reference=r["reference"],
            contexts=tuple(r["contexts"]),
            target=float(EXPECTED_ORDER[r["expected"]]),
        )
        for r in read_jsonl(path)
    ]
    return subset(rows, lambda r: r.id, limit, seed)


def rose_e2e(path: Path, limit: int | None, seed: int) -> list[RecallRow]:
    rows = [
        RecallRow(
            id=r["id"],
            reference=r["reference"],
            contexts=tuple(r["contexts"]),
            target=float(r["human_recall"]),
        )
        for r in read_jsonl(path)
    ]
    return subset(rows, lambda r: r.id, limit, seed)


def decomposition(path: Path, limit: int | None, seed: int) -> list[DecompositionRow]:
    rows = [
        DecompositionRow(id=r["id"], text=r["text"], claims=tuple(r["claims"]))
        for r in read_jsonl(path)
    ]
    return subset(rows, lambda r: r.id, limit, seed)


def clapnq(path: Path, limit: int | None, seed: int) -> ClapRows:
    raw = subset(read_jsonl(path), lambda r: str(r["id"]), limit, seed)
    return ClapRows(
        gold=[
            RecallRow(str(r["id"]), r["reference"], tuple(r["contexts_gold_sentences"]))
            for r in raw
        ],
        other=[
            RecallRow(str(r["id"]), r["reference"], tuple(r["contexts_other_question_passage"]))
            for r in raw
        ],
    )
