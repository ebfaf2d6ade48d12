"""offline-recall's context recall and context precision scorers over the benchmark's items.

    python offline_recall_peer.py MODEL ENGINE VERDICTS CONCURRENCY DTYPE RECALL_ITEMS \
        RECALL_OUT PRECISION_ITEMS PRECISION_OUT

Runs in the project's environment. MODEL is a bundled model's name (the name the benchmark's
server serves it under). ENGINE is `openai` (the benchmark's vLLM server, as the peers use it)
or `vllm` (the engine in this process). VERDICTS is `profile` (each scorer's shipped judge
profile) or `model` (the plain rule on the model's P(yes): relevant or supported when it
reaches the manifest's threshold). DTYPE is the in-process engine's (the server is started
with its own). One engine serves both scorers; each scorer's items go through `run_many` at
once, and a scorer whose items file is empty is not run. Each output line is {id, score,
error}, with a precision row's chunk probabilities as `verdicts`. The last line printed is one
JSON object: per scorer, the judge profile's signals and origin, and, where it ran, the scoring
time and the model's requests and tokens (the server's counters on `openai`, with its
prefix-cache lookups; the engine's outputs on `vllm`); and the engine's start (building the
spec's engine and scorers, the model loaded), apart.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from local_server import URL, Usage, counters, reset_prefix_cache, usage

from offline_recall import PrecisionResult, Status, load_manifest
from offline_recall.judging.profile import JudgeProfile, threshold_profile
from offline_recall.metrics.precision import ContextPrecisionScorer
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.results import ScorerInput

RECALL = ContextRecallScorer.id
PRECISION = ContextPrecisionScorer.id


class EngineTally:
    """Requests and tokens counted from the in-process vLLM engine's outputs."""

    def __init__(self, llm: Any) -> None:
        self.calls = self.prompt = self.completion = 0
        generate = llm.generate

        def counted(*args: Any, **kwargs: Any) -> Any:
            outputs = generate(*args, **kwargs)
            for o in outputs:
                self.calls += 1
                self.prompt += len(o.prompt_token_ids)
                self.completion += sum(len(c.token_ids) for c in o.outputs)
            return outputs

        llm.generate = counted

    def snapshot(self) -> dict[str, float]:
        return {"calls": self.calls, "prompt": self.prompt, "completion": self.completion}


def model_profiles(model: str) -> dict[str, JudgeProfile]:
    threshold = load_manifest(model).threshold
    return {s: threshold_profile(threshold, scorer=s) for s in (RECALL, PRECISION)}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def recall_run(item: dict[str, Any]) -> ScorerInput:
    return ScorerInput(ground_truth=item["ground_truth"], context=item["context"])


def precision_run(item: dict[str, Any]) -> ScorerInput:
    return ScorerInput(input=item["question"], ground_truth=item["answer"], context=item["chunks"])


def row(item: dict[str, Any], result: Any) -> dict[str, Any]:
    failed = result.status == Status.ERROR
    found: dict[str, Any] = {
        "id": item["id"],
        "score": None if failed else result.score,
        "error": result.error if failed else None,
    }
    if isinstance(result, PrecisionResult):
        found["verdicts"] = [v.probability for v in result.verdicts] or None
    return found


def main() -> None:
    model, engine, verdicts, concurrency, dtype, *paths = sys.argv[1:]
    recall_items, recall_out, precision_items, precision_out = map(Path, paths)
    options: dict[str, Any] = (
        {"base_url": URL, "concurrency": int(concurrency)}
        if engine == "openai"
        else {"dtype": dtype}
    )
    starting = time.perf_counter()
    resolved = resolve(
        model=model,
        backend=engine,
        engine_options=options,
        scorers=[RECALL, PRECISION],
        profiles=model_profiles(model) if verdicts == "model" else None,
    )
    spec = resolved.spec
    scoring = session(resolved)
    tally = EngineTally(cast(Any, scoring.engine).llm) if engine == "vllm" else None
    report: dict[str, Any] = {"start_s": time.perf_counter() - starting}

    def measure() -> dict[str, float]:
        return tally.snapshot() if tally is not None else counters()

    jobs = (
        (RECALL, recall_items, recall_out, recall_run),
        (PRECISION, precision_items, precision_out, precision_run),
    )
    for scorer_id, items_path, out_path, to_run in jobs:
        found = spec.scorer(scorer_id)
        profile = found.setup.judge_profile
        report[scorer_id] = {
            "signals": list(profile.signals),
            "uses_model": profile.uses_model,
            "threshold": profile.threshold,
            "origin": found.profile_origin.value,
        }
        items = read(items_path)
        if not items:
            out_path.write_text("")
            continue
        runs = [to_run(i) for i in items]
        if tally is None:
            reset_prefix_cache()
        before = measure()
        started = time.perf_counter()
        results = scoring.scorers[scorer_id].run_many(runs)
        seconds = time.perf_counter() - started
        after = measure()
        if tally is None:
            used = usage(before, after)
        else:
            used = Usage(**{k: round(after[k] - before[k]) for k in before})
        out_path.write_text(
            "".join(json.dumps(row(i, r)) + "\n" for i, r in zip(items, results, strict=True))
        )
        report[scorer_id] |= {"seconds": seconds, "usage": asdict(used)}
    scoring.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
