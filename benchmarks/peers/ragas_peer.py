"""RAGAS `LLMContextRecall` or `LLMContextPrecisionWithReference` over a JSON Lines file of
items, against a local server.

    python ragas_peer.py TASK ITEMS.jsonl OUT.jsonl BASE_URL MODEL CONCURRENCY MAX_TOKENS

TASK is `recall` (items {id, ground_truth, context}) or `precision` (items {id, question,
answer, chunks}); RAGAS returns a score per row, not its chunk verdicts. Runs in the peers' own
environment (requirements.txt). Each output line is {id, score, error}; a row RAGAS returns as
NaN (its value for an unparseable or unfinished answer) has score null, and the exception RAGAS
logged for it as its error. The last line printed is {"seconds": ...}: the scoring time,
without start-up.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI
from ragas import EvaluationDataset, RunConfig, evaluate
from ragas.llms import LangchainLLMWrapper
from ragas.metrics import LLMContextPrecisionWithReference, LLMContextRecall

# RAGAS asks for the question; the RoSE references are summaries of a news article.
QUESTION = "Summarise the news article."


class JobErrors(logging.Handler):
    """The exception RAGAS's executor logs for each failed job (it returns NaN for the row)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_job: dict[int, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == "Exception raised in Job[%s]: %s(%s)" and record.args:
            job, kind, message = record.args  # type: ignore[misc]
            self.by_job[int(job)] = f"{kind}: {message}"[:300]


def main() -> None:
    task, items_path, out_path, base_url, model, concurrency, max_tokens = sys.argv[1:]
    items = [json.loads(line) for line in Path(items_path).read_text().splitlines() if line]
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    chat = ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key="unused",  # type: ignore[arg-type]
        temperature=0.0,
        max_tokens=int(max_tokens),  # type: ignore[call-arg]
    )
    if task == "precision":
        rows = [
            {
                "user_input": i["question"],
                "reference": i["answer"],
                "retrieved_contexts": i["chunks"],
            }
            for i in items
        ]
        metric: Any = LLMContextPrecisionWithReference()
    else:
        rows = [
            {
                "user_input": QUESTION,
                "reference": i["ground_truth"],
                "retrieved_contexts": i["context"],
            }
            for i in items
        ]
        metric = LLMContextRecall()
    dataset = EvaluationDataset.from_list(rows)
    errors = JobErrors()
    logging.getLogger("ragas.executor").addHandler(errors)
    started = time.perf_counter()
    result = evaluate(
        dataset,
        metrics=[metric],
        llm=LangchainLLMWrapper(chat),
        run_config=RunConfig(max_workers=int(concurrency), max_retries=1, timeout=600),
        raise_exceptions=False,
        show_progress=False,
    )
    seconds = time.perf_counter() - started
    scores = result.to_pandas()[metric.name].tolist()
    with open(out_path, "w") as out:
        for job, (item, score) in enumerate(zip(items, scores, strict=True)):
            ok = score is not None and math.isfinite(score)
            error = None if ok else errors.by_job.get(job, "NaN")
            row = {"id": item["id"], "score": score if ok else None, "error": error}
            out.write(json.dumps(row) + "\n")
    print(json.dumps({"seconds": seconds}))


if __name__ == "__main__":
    main()
