"""DeepEval `ContextualRecallMetric` or `ContextualPrecisionMetric` over a JSON Lines file of
items, against a local server.

    python deepeval_peer.py TASK ITEMS.jsonl OUT.jsonl BASE_URL MODEL CONCURRENCY MAX_TOKENS

TASK is `recall` (items {id, ground_truth, context}) or `precision` (items {id, question,
answer, chunks}). Runs in the peers' own environment (requirements.txt), with DeepEval's
`LocalModel` (its class for OpenAI-compatible servers). Each output line is {id, score, error},
with a precision row's chunk verdicts (1 relevant, 0 not) as `verdicts` when the model gave one
per chunk; a metric that raises (unparseable JSON, a schema mismatch) is written with score null
and its error. The last line printed is {"seconds": ...}: the scoring time, without start-up.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

from deepeval.metrics import ContextualPrecisionMetric, ContextualRecallMetric
from deepeval.models import LocalModel
from deepeval.test_case import LLMTestCase

# DeepEval's test case needs an input and an actual output; recall reads neither.
QUESTION = "Summarise the news article."


def recall_case(item: dict[str, Any]) -> LLMTestCase:
    return LLMTestCase(
        input=QUESTION,
        actual_output=item["ground_truth"],
        expected_output=item["ground_truth"],
        retrieval_context=item["context"],
    )


def precision_case(item: dict[str, Any]) -> LLMTestCase:
    # Precision judges each chunk against the expected output; the actual output is the same.
    return LLMTestCase(
        input=item["question"],
        actual_output=item["answer"],
        expected_output=item["answer"],
        retrieval_context=item["chunks"],
    )


def chunk_verdicts(metric: Any, chunks: int) -> list[int] | None:
    found = getattr(metric, "verdicts", None) or []
    if len(found) != chunks:
        return None
    return [int(str(v.verdict).strip().lower() == "yes") for v in found]


async def score_all(
    task: str, items: list[dict[str, Any]], model: LocalModel, concurrency: int
) -> list[dict[str, Any]]:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        precision = task == "precision"
        case = precision_case(item) if precision else recall_case(item)
        metric: Any = (ContextualPrecisionMetric if precision else ContextualRecallMetric)(
            model=model, async_mode=True
        )
        async with gate:
            try:
                score = await metric.a_measure(case, _show_indicator=False)
            except Exception as e:  # a failed row is recorded, never dropped
                return {"id": item["id"], "score": None, "error": f"{type(e).__name__}: {e}"[:300]}
        ok = score is not None and math.isfinite(score)
        row = {"id": item["id"], "score": score if ok else None, "error": None if ok else "NaN"}
        if precision:
            row["verdicts"] = chunk_verdicts(metric, len(item["chunks"]))
        return row

    return await asyncio.gather(*(one(item) for item in items))


def main() -> None:
    task, items_path, out_path, base_url, name, concurrency, max_tokens = sys.argv[1:]
    items = [json.loads(line) for line in Path(items_path).read_text().splitlines() if line]
    model = LocalModel(
        model=name,
        base_url=base_url,
        api_key="unused",
        temperature=0.0,
        generation_kwargs={"max_tokens": int(max_tokens)},
    )
    started = time.perf_counter()
    rows = asyncio.run(score_all(task, items, model, int(concurrency)))
    seconds = time.perf_counter() - started
    Path(out_path).write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(json.dumps({"seconds": seconds}))


if __name__ == "__main__":
    main()
