"""Make labelled (context, claim) pairs for fitting a judge profile, from the dev data.

    python scripts/make_judge_pairs.py --out pairs.jsonl [--data DIR] [--seed 0] [--per-context 2]

From each WiCE article and ClapNQ passage, sentences taken from the context are claims it
supports; the same sentences with one detail changed are claims it does not: a number swapped
for another number of the context, a name for another name of the context, a negation added or
removed; and sentences of other documents are not supported either. Each row is
`{"group", "claim", "context", "label", "kind"}`, as `offline-recall calibrate` reads it; the
seed decides every choice, so the same seed makes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SOURCES = ("wice/attribution_claim_fullarticle_dev.jsonl", "clapnq/e2e_answerable_dev.jsonl")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+")
_NEGATED = re.compile(r"\b(is|was|are|were|has|have|had|did|does|do|can|will)\s+not\b")
_AFFIRMED = re.compile(r"\b(is|was|are|were|has|have|had|did|does|can|will)\b")


def _contexts(data: Path) -> Iterator[tuple[str, str]]:
    """(id, context) of every WiCE article and ClapNQ passage."""
    for name in SOURCES:
        with (data / name).open(encoding="utf-8") as f:
            for line in f:
                row: dict[str, Any] = json.loads(line)
                context = row.get("context") or row["contexts_full_passage"][0]
                yield f"{name.split('/')[0]}-{row['id']}", context


def _sentences(text: str) -> list[str]:
    found = [s.strip() for s in _SENTENCE_END.split(text)]
    return [s for s in found if 6 <= len(s.split()) <= 40]


def _swap(pattern: re.Pattern[str], sentence: str, context: str, rng: random.Random) -> str | None:
    """The sentence with one match of `pattern` replaced by another of the context's."""
    own = pattern.findall(sentence)
    others = sorted(set(pattern.findall(context)) - set(own))
    if not own or not others:
        return None
    return sentence.replace(rng.choice(own), rng.choice(others), 1)


def _negate(sentence: str) -> str | None:
    if _NEGATED.search(sentence):
        return _NEGATED.sub(lambda m: m.group(1), sentence, count=1)
    if _AFFIRMED.search(sentence):
        return _AFFIRMED.sub(lambda m: f"{m.group(1)} not", sentence, count=1)
    return None


def pairs(data: Path, seed: int, per_context: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    contexts = list(_contexts(data))
    rows: list[dict[str, Any]] = []
    for cid, context in contexts:
        sentences = _sentences(context)
        for k, sentence in enumerate(rng.sample(sentences, min(per_context, len(sentences)))):
            changed = {
                "number swapped": _swap(_NUMBER, sentence, context, rng),
                "name swapped": _swap(_NAME, sentence, context, rng),
                "negation": _negate(sentence),
            }
            _, other = rng.choice(contexts)
            elsewhere = _sentences(other)
            if elsewhere:
                changed["other document"] = rng.choice(elsewhere)
            rows.append({"claim": sentence, "label": 1, "kind": "taken from the context"})
            rows += [{"claim": c, "label": 0, "kind": kind} for kind, c in changed.items() if c]
            for row in rows[-(1 + sum(c is not None for c in changed.values())) :]:
                row |= {"group": f"{cid}#{k}#{row['kind']}", "context": context}
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-context", type=int, default=2)
    args = parser.parse_args()
    rows = pairs(args.data, args.seed, args.per_context)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"wrote {len(rows)} pairs to {args.out}: {kinds}")


if __name__ == "__main__":
    main()
