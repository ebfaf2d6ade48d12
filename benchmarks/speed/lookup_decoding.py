"""Claim extraction on the transformers engine, one token a forward pass against tokens
guessed from the prompt and checked in one pass: time, forward passes, and whether every
claim list is the same text.

    python benchmarks/speed/lookup_decoding.py [--data DIR] [--rows N] [--settings 0,8,8h]

The sentences are those the scorer sends to the model (prompt set v4: a sentence that is one
claim already is not sent): the bundled example's ground truths and the ground truths (RoSE
references) of N dev rows. Each setting runs the same prompts in one process, one after
another, on the embedded model; the first setting is the reference the others are compared
with. A setting is the tokens guessed a pass, with `h` when the prompts' shared head (the
instructions and the worked example) is computed once rather than with every prompt. Prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_data import ROSE_E2E, rose_e2e
from offline_recall.engines import create_engine
from offline_recall.engines import lookup_decoding as decoding
from offline_recall.engines.base import JsonOutput
from offline_recall.engines.transformers import TransformersEngine
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type, single_claim
from offline_recall.text import split_sentences

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "offline_recall" / "examples" / "example.jsonl"
SEED = 0


def sentences(data: Path, rows: int) -> list[str]:
    """The distinct sentences the scorer would ask the model about."""
    rules = load_prompts("v4").extract
    texts = [json.loads(line)["groundTruth"] for line in EXAMPLE.read_text().splitlines()]
    texts += [row.reference for row in rose_e2e(data / ROSE_E2E, rows, SEED)]
    every = dict.fromkeys(s for t in texts for s in split_sentences(t) or [t])
    words = rules.single_claim_words or 0
    return [s for s in every if not (words and single_claim(s, words))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument(
        "--settings", default="0,8,8h", help="tokens guessed a pass (h: head once), reference first"
    )
    args = parser.parse_args()
    settings = [(int(s.rstrip("h")), s.endswith("h")) for s in args.settings.split(",")]

    units = sentences(args.data, args.rows)
    prompts = load_prompts("v4")
    rules = prompts.extract
    output = JsonOutput(claim_list_type(rules.sentence_claims or 6), rules.sentence_tokens or 160)
    engine = create_engine("transformers")
    assert isinstance(engine, TransformersEngine)

    passes = 0
    original = decoding._kept

    def counted(*args: object) -> int:
        nonlocal passes
        passes += 1
        return original(*args)  # type: ignore[arg-type]

    decoding._kept = counted  # type: ignore[assignment]
    lines = [
        f"{len(units)} sentences ({args.rows} RoSE dev rows and the example), "
        "smollm2-135m-instruct",
        "",
        "| guessed tokens a pass | head once | seconds | s a sentence | forward passes |"
        " claim lists identical to the first row's |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    reference: list[str] | None = None
    for guess, head in settings:
        update = {"guess_tokens": guess, "reuse_prefix": head}
        engine.options = engine.options.model_copy(update=update)
        passes = 0
        started = time.perf_counter()
        asked = [prompts.extract_prompt(s) for s in units]
        texts = [str(t) for t in engine.generate_json(asked, output)]
        seconds = time.perf_counter() - started
        reference = reference or texts
        same = sum(a == b for a, b in zip(reference, texts, strict=True))
        lines.append(
            f"| {guess} | {'yes' if head else 'no'} | {seconds:.1f} | "
            f"{seconds / len(units):.2f} | {passes + len(units)} | {same}/{len(units)} |"
        )
        print(lines[-1], file=sys.stderr, flush=True)
        for a, b in zip(reference, texts, strict=True):
            if a != b:
                print(f"differs:\n  {a}\n  {b}", file=sys.stderr)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
