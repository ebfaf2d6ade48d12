"""DeepEval `ContextualRecallMetric` over a JSON Lines file of items, against a local server.

    python deepeval_peer.py ITEMS.jsonl OUT.jsonl BASE_URL MODEL CONCURRENCY MAX_TOKENS

Runs in the peers' own environment (requirements.txt), with DeepEval's `LocalModel` (its class
for OpenAI-compatible servers). Each output line is {id, score, error}; a metric that raises
(unparseable JSON, a schema mismatch) is written with score null and its error. The last line
printed is {"seconds": ...}: the scoring time, without start-up.
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

from deepeval.metrics import ContextualRecallMetric
from deepeval.models import LocalModel
from deepeval.test_case import LLMTestCase

# DeepEval's test case needs an input and an actual output; recall reads neither.
QUESTION = "Summarise the news article."


async def score_all(
    items: list[dict[str, Any]], model: LocalModel, concurrency: int
) -> list[dict[str, Any]]:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        case = LLMTestCase(
            input=QUESTION,
            actual_output=item["ground_truth"],
            expected_output=item["ground_truth"],
            retrieval_context=item["context"],
        )
        metric = ContextualRecallMetric(model=model, async_mode=True)
        async with gate:
            try:
                score = await metric.a_measure(case, _show_indicator=False)
            except Exception as e:  # a failed row is recorded, never dropped
                return {"id": item["id"], "score": None, "error": f"{type(e).__name__}: {e}"[:300]}
        ok = score is not None and math.isfinite(score)
        return {"id": item["id"], "score": score if ok else None, "error": None if ok else "NaN"}

    return await asyncio.gather(*(one(item) for item in items))


def main() -> None:
    items_path, out_path, base_url, name, concurrency, max_tokens = sys.argv[1:]
    items = [json.loads(line) for line in Path(items_path).read_text().splitlines() if line]
    model = LocalModel(
        model=name,
        base_url=base_url,
        api_key="unused",
        temperature=0.0,
        generation_kwargs={"max_tokens": int(max_tokens)},
    )
    started = time.perf_counter()
    rows = asyncio.run(score_all(items, model, int(concurrency)))
    seconds = time.perf_counter() - started
    Path(out_path).write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(json.dumps({"seconds": seconds}))


if __name__ == "__main__":
    main()
