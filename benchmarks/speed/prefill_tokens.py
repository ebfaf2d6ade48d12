"""Tokens a yes/no verdict costs to prefill: each prompt whole, its shared head once, and vLLM's
prefix cache (blocks of 32 tokens).

    python benchmarks/speed/prefill_tokens.py [--model NAME] [--rows N] [--data DIR]

No model runs: the verdict prompts a run asks (RoSE dev rows, the annotators' atomic facts as
the claims, each against the row's system summary) are rendered with the model's chat template
and counted with its tokenizer. A verdict is asked about what the model's shipped rule asks it
about (the whole chunk, or its best-matching sentences: `evidence_sentences`), and about the
other of the whole chunk and its best three sentences beside it. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from offline_recall.engines.chat import ChatTemplate
from offline_recall.engines.manifests import load_manifest
from offline_recall.engines.weights import model_dir
from offline_recall.judging.judge import model_pairs
from offline_recall.judging.profile import RECALL, find_profile
from offline_recall.scorer.claims.prompts import load_prompts

ROOT = Path(__file__).resolve().parents[2]
BLOCK = 32
"""vLLM's prefix-cache block size as the vLLM engine runs it."""


def counts(prompts: list[tuple[list[int], int]]) -> tuple[int, int, int]:
    """Tokens prefilled over all prompts: each whole; each shared head once; and with a
    prefix cache that keeps every full block of every earlier prompt."""
    whole = sum(len(ids) for ids, _ in prompts)
    heads: set[tuple[int, ...]] = set()
    once = 0
    for ids, shared in prompts:
        head = tuple(ids[:shared])
        once += len(ids) - shared + (0 if head in heads else shared)
        heads.add(head)
    blocks: set[tuple[int, ...]] = set()
    cached = 0
    for ids, _ in prompts:
        hit = 0
        for end in range(BLOCK, len(ids), BLOCK):  # the last token is always computed
            if tuple(ids[:end]) not in blocks:
                break
            hit = end
        cached += len(ids) - hit
        blocks.update(tuple(ids[:end]) for end in range(BLOCK, len(ids) + 1, BLOCK))
    return whole, once, cached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()

    from transformers import AutoTokenizer

    manifest = load_manifest(args.model)
    chat = ChatTemplate(AutoTokenizer.from_pretrained(model_dir(manifest)), manifest)
    version = manifest.scorers[RECALL].prompt_version or ""
    profile = find_profile(RECALL, manifest.fingerprint, version, manifest.threshold).profile
    prompts = load_prompts(version)
    path = args.data / "rose" / "e2e_acu_recall_dev.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[: args.rows]]
    pairs = [(c, acu) for r in rows for c in r["contexts"] for acu in r["reference_acus"]]

    print(
        f"{manifest.name}, prompt set {version}; {len(rows)} RoSE dev rows, {len(pairs)} verdicts"
    )
    print()
    print(
        "| the model is asked about | tokens a verdict, each prompt whole | shared head once |"
        " vLLM prefix cache (blocks of 32) | distinct heads |"
    )
    print("|---|---:|---:|---:|---:|")
    shipped = profile.evidence_sentences
    for sentences in dict.fromkeys([shipped, None, 3]):
        label = "the whole chunk" if sentences is None else f"the best {sentences} sentences"
        label += " (as shipped)" if sentences == shipped else ""
        asked = [chat.split(prompts.judge_prompt(c, s)) for c, s in model_pairs(pairs, sentences)]
        whole, once, cached = counts(asked)
        distinct = len({tuple(ids[:shared]) for ids, shared in asked})
        n = len(asked)
        print(f"| {label} | {whole / n:.0f} | {once / n:.0f} | {cached / n:.0f} | {distinct} |")


if __name__ == "__main__":
    main()
