"""Scores two example rows on vLLM with each pinned manifest given, one engine after another in
this one process, and prints a JSON line per model: what tests/engines/test_families.py checks. A
classifier verifier judges while the fake engine extracts.

    python -m tests.vllm_families MANIFEST...

A process of its own: vLLM spawns its workers from it (hence the `__main__` guard).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from offline_recall import (
    ContextRecallOptions,
    FakeEngine,
    create_context_recall_scorer,
    load_manifest,
)
from offline_recall.engines import JsonOutput
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type, parse_claims

EXAMPLE = Path(__file__).resolve().parents[1] / "offline_recall" / "examples" / "example.jsonl"
CONTEXT = "Canberra is the capital city of Australia. It was chosen as a compromise."
CLAIM = "Canberra is the capital of Australia."


def judge(manifest: str) -> dict[str, object]:
    """A classifier verifier on vLLM judging while the fake engine extracts."""
    rows = _rows()
    started = time.perf_counter()
    scorer = create_context_recall_scorer(
        FakeEngine(),
        ContextRecallOptions(context=[CONTEXT]),
        judge=load_manifest(manifest),
        judge_engine="vllm",
    )
    loaded = time.perf_counter()
    try:
        (p_yes,) = scorer.judge_engine.answer_probabilities(
            [load_prompts("v2").judge_prompt(CONTEXT, CLAIM)], ("yes", "no")
        )
        results = scorer.run_many(rows)
    finally:
        scorer.judge_engine.close()
    return {
        "manifest": manifest,
        "fingerprint": scorer.judge_engine.identity.fingerprint,
        "p_yes": list(p_yes) if isinstance(p_yes, tuple) else str(p_yes),
        "results": [r.model_dump(mode="json") for r in results],
        "start_s": round(loaded - started, 1),
        "score_s": round(time.perf_counter() - loaded, 1),
    }


def _rows() -> list[dict[str, object]]:
    return [
        {k: v for k, v in json.loads(line).items() if k in ("groundTruth", "context")}
        for line in EXAMPLE.read_text().splitlines()[:2]
    ]


def score(manifest: str) -> dict[str, object]:
    rows = _rows()
    started = time.perf_counter()
    resolved = resolve(model=manifest, backend="vllm", engine_options={"dtype": "float32"})
    spec = resolved.spec
    scoring = session(resolved)
    loaded = time.perf_counter()
    try:
        prompts = load_prompts("v2")
        (p_yes,) = scoring.engine.answer_probabilities(
            [prompts.judge_prompt(CONTEXT, CLAIM)], ("yes", "no")
        )
        claims = claim_list_type(3)
        (raw,) = scoring.engine.generate_json(
            [prompts.extract_prompt(CLAIM)], JsonOutput(claims, 48)
        )
        parsed = parse_claims(raw, claims, 48) if isinstance(raw, str) else raw
        results = list(scoring.scorers["context-recall-scorer"].run_many(rows))
    finally:
        scoring.close()
    return {
        "manifest": manifest,
        "fingerprint": spec.model_fingerprint,
        "p_yes": list(p_yes) if isinstance(p_yes, tuple) else str(p_yes),
        "json": raw if isinstance(raw, str) else str(raw),
        "claims_parsed": isinstance(parsed, list) or "token" in parsed.message,
        "results": [r.model_dump(mode="json") for r in results],
        "start_s": round(loaded - started, 1),
        "score_s": round(time.perf_counter() - loaded, 1),
    }


if __name__ == "__main__":
    for path in sys.argv[1:]:
        found = judge(path) if load_manifest(path).classifier is not None else score(path)
        print(json.dumps(found), flush=True)
