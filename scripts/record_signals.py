"""Record a model's judge signals on labelled pairs and on the behaviour cases, resumably.

    python scripts/record_signals.py --model qwen2.5-coder-1.5b-instruct [--backend vllm]
        [--data FILE --limit N ...] [--cases] --out FILE

Each pair is judged as calibration judges it (the model's P(yes) on the claim's three best
evidence sentences, and every lexical signal) and appended to `--out` as JSON Lines
(`key`, `group`, `claim`, `context`, `label`, `signals`) a batch at a time, so an interrupted
run goes on where it stopped. `--data` pairs come with the negatives every fit sees
(`judging.negatives`); `--cases` adds the behaviour cases (group `case:<n>`). The file is what
`scripts/build_judge_profile.py --signals-in` fits from, and the behaviour cases' P(yes) is what
the fast tests gate a shipped profile on (`tests/fixtures/<model>.cases.jsonl`, written with
`--cases-out`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from offline_recall.engines import Failed
from offline_recall.judging.behaviour import cases
from offline_recall.judging.judge import signal_values
from offline_recall.judging.labelled import LabelledPair, read_labelled
from offline_recall.judging.negatives import with_negatives
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.registry import RECALL

EVIDENCE_SENTENCES = 3
BATCH = 16
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def key(context: str, claim: str) -> str:
    """A pair's key: the sha256 of its context and claim."""
    return hashlib.sha256(f"{context}\0{claim}".encode()).hexdigest()[:20]


CONVERTED = {"onnx": ".onnx"}
"""Engines that run a model's weights converted (a judge of their own, with its own fingerprint),
by the suffix their recordings and cards carry after the model's name."""


def judge_name(model: str, backend: str) -> str:
    """The name a judge's recordings and card go by: the model's, and for an engine that runs
    it converted, that engine's suffix (`qwen2.5-coder-1.5b-instruct.onnx`)."""
    return model + CONVERTED.get(backend, "")


def cases_file(judge: str) -> Path:
    """Where a judge's P(yes) on the behaviour cases is kept (`--cases-out`): what the fast
    tests gate it on and `scripts/judge_cards.py` measures its card from."""
    return FIXTURES / f"{judge}.cases.jsonl"


def read_cases(path: Path) -> dict[str, float]:
    """The P(yes) a `--cases-out` file holds, by case key (`key`)."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return {row["key"]: row["model"] for row in rows}


def cases_command(judge: str) -> str:
    """The command that records a judge's P(yes) on every behaviour case into `cases_file`."""
    backend = next((b for b, suffix in CONVERTED.items() if judge.endswith(suffix)), None)
    model = judge.removesuffix(CONVERTED[backend]) if backend else judge
    option = f" --backend {backend}" if backend else ""
    return (
        f"python scripts/record_signals.py --model {model}{option} --cases --out "
        f"{judge}.cases-signals.jsonl --cases-out tests/fixtures/{judge}.cases.jsonl"
    )


def limited(pairs: list[LabelledPair], limit: int | None) -> list[LabelledPair]:
    """The pairs of the first `limit` claims in the seeded order scripts/build_judge_profile.py
    keeps them in."""
    if limit is None:
        return pairs
    groups = sorted(
        {p.group for p in pairs}, key=lambda g: hashlib.sha256(f"0:{g}".encode()).hexdigest()
    )
    chosen = set(groups[:limit])
    return [p for p in pairs if p.group in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--backend", default="vllm")
    parser.add_argument("--data", type=Path, action="append", default=[])
    parser.add_argument("--limit", type=int, default=None, help="claims kept per --data file")
    parser.add_argument("--cases", action="store_true", help="record the behaviour cases")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--cases-out", type=Path, default=None, help="write the cases' P(yes) here at the end"
    )
    args = parser.parse_args()

    pairs: list[LabelledPair] = []
    if args.cases:
        pairs += [
            LabelledPair(c.context, c.claim, c.supported, f"case:{i}")
            for i, c in enumerate(cases())
        ]
    labelled: list[LabelledPair] = []
    for path in args.data:
        read, errors = read_labelled(path)
        if errors:
            raise SystemExit(f"{path}: {len(errors)} unusable rows, first: {errors[0].message}")
        labelled += limited(read, args.limit)
    # The negatives are made from every file's claims together, as a fit makes them.
    pairs += with_negatives(labelled)
    done: set[str] = set()
    if args.out.exists():
        done = {json.loads(line)["key"] for line in args.out.read_text("utf-8").splitlines()}
    todo = [p for p in pairs if key(p.context, str(p.claim)) not in done]
    todo = list({key(p.context, str(p.claim)): p for p in todo}.values())
    print(f"{len(pairs)} pairs, {len(pairs) - len(todo)} recorded already, {len(todo)} to judge")
    if todo:
        resolved = resolve(model=args.model, backend=args.backend)
        scoring = session(resolved)
        question = scoring.scorers[RECALL].judge.question  # type: ignore[attr-defined]
        started = time.perf_counter()
        try:
            for start in range(0, len(todo), BATCH):
                batch = todo[start : start + BATCH]
                values = signal_values(
                    scoring.engine,
                    question,
                    [(p.context, str(p.claim)) for p in batch],
                    evidence_sentences=EVIDENCE_SENTENCES,
                )
                with args.out.open("a", encoding="utf-8") as f:
                    for p, v in zip(batch, values, strict=True):
                        if isinstance(v, Failed):
                            continue
                        row = {
                            "key": key(p.context, str(p.claim)),
                            "group": p.group,
                            "claim": p.claim,
                            "context": p.context,
                            "label": p.label,
                            "signals": v,
                        }
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
                seconds = time.perf_counter() - started
                finished = start + len(batch)
                print(
                    f"{finished}/{len(todo)} judged, {seconds / finished:.2f} s a pair", flush=True
                )
        finally:
            scoring.close()
    if args.cases_out is not None:
        recorded = {}
        for line in args.out.read_text("utf-8").splitlines():
            row = json.loads(line)
            recorded[row["key"]] = row["signals"]["model"]
        lines = []
        for c in cases():
            k = key(c.context, c.claim)
            if k in recorded:
                lines.append(json.dumps({"key": k, "model": recorded[k]}))
        args.cases_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(lines)} cases' P(yes) to {args.cases_out}")


if __name__ == "__main__":
    main()
