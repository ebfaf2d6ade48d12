"""run_evals: run a target on each item, score it with every scorer, and summarise."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigurationError
from ..scorer.inputs import input_fields
from ..scorer.results import Scorer, ScoreResult, ScorerInput
from .summary import Summary, Tally, windows

WINDOW = 16
"""Items scored together: their prompts go to the engine as one batch."""

ITEM_FIELDS = ("input", "ground_truth", "context")
"""What `run_evals` reads of an item besides its `id` (the target gives the output)."""


class ItemResult(BaseModel):
    """One item after its target ran and every scorer scored it."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    index: int
    id: Any = None
    input: Any
    output: Any = None
    ground_truth: Any = None
    target_error: str | None = None
    results: dict[str, ScoreResult]
    metadata: dict[str, Any] | None = None
    """The item's other keys, which no scorer reads, as the item gave them."""


class EvalResult(BaseModel):
    """Mean score per scorer id, with each scorer's counts of scored and failed items."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scores: dict[str, float | None]
    summaries: dict[str, Summary]
    total_items: int


class _Item(BaseModel):
    """An item as read: its id, the fields a run is built from, and the keys no scorer reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Any = None
    input: Any = None
    ground_truth: Any = None
    context: list[str] | None = None
    metadata: dict[str, Any] | None = None


def _read_items(data: Sequence[Mapping[str, Any]]) -> list[_Item]:
    """Every item read by the names `scorer.run` and the command line read, before any target
    runs: a field under two names, or a `context` that is not chunks, is refused."""
    items: list[_Item] = []
    for index, item in enumerate(data):
        if not isinstance(item, Mapping):
            raise ValueError(f"item {index}: expected a mapping, got {type(item).__name__}")
        rest = {k: v for k, v in item.items() if k != "id"}
        try:
            given, others = input_fields(rest, ITEM_FIELDS)
        except ConfigurationError as e:
            raise ValueError(f"item {index}: {e}") from e
        items.append(_Item(id=item.get("id"), **given, metadata=others or None))
    return items


def run_evals(
    data: Sequence[Mapping[str, Any]],
    scorers: Sequence[Scorer],
    target: Callable[[Any], Any],
    on_item_complete: Callable[[ItemResult], None] | None = None,
    concurrency: int = 1,
) -> EvalResult:
    """Run `target` on each item's `input`, score the output with every scorer, summarise.

    Items are `{"input": ..., "groundTruth" or "ground_truth": ...}`, with an optional `id`
    and `context`, or the same fields under RAGAS's names, as `scorer.run` reads them. An
    item's own `context` (its retrieved chunks) is what it is scored against, as `scorer.run`
    does, instead of the scorers' context options (a `ContextWarning` says so when they name
    another source); without one, the options give it (from the target's output through
    `context_extractor`, or the static `context`). An item's other keys are not read: they come
    back as its result's `metadata`. `concurrency` bounds how many target calls run at once;
    scoring goes to the model in batches. A target that raises, or a run a scorer cannot
    score, is recorded as that item's error and counted.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    items = _read_items(data)
    tallies = {s.id: Tally() for s in scorers}

    def call(item: _Item) -> tuple[Any, str | None]:
        try:
            return target(item.input), None
        except Exception as e:
            return None, f"target failed: {type(e).__name__}: {e}"

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        offset = 0
        for window in windows(items, WINDOW):
            outputs = list(pool.map(call, window))
            runs = [
                ScorerInput(
                    input=item.input,
                    output=out,
                    ground_truth=item.ground_truth,
                    context=item.context,
                )
                for item, (out, _) in zip(window, outputs, strict=True)
            ]
            per_scorer = {s.id: _score(s, runs, [err for _, err in outputs]) for s in scorers}
            for k, (item, (out, err)) in enumerate(zip(window, outputs, strict=True)):
                results = {sid: rs[k] for sid, rs in per_scorer.items()}
                for sid, r in results.items():
                    tallies[sid].add(r)
                if on_item_complete is not None:
                    on_item_complete(
                        ItemResult(
                            index=offset + k,
                            id=item.id,
                            input=item.input,
                            output=out,
                            ground_truth=item.ground_truth,
                            target_error=err,
                            results=results,
                            metadata=item.metadata,
                        )
                    )
            offset += len(window)
    summaries = {sid: t.summary() for sid, t in tallies.items()}
    return EvalResult(
        scores={sid: s.mean for sid, s in summaries.items()},
        summaries=summaries,
        total_items=len(data),
    )


def _score(scorer: Scorer, runs: list[ScorerInput], errors: list[str | None]) -> list[ScoreResult]:
    """Score the runs whose target succeeded; the others become error results."""
    ok = [r for r, e in zip(runs, errors, strict=True) if e is None]
    scored = iter(scorer.run_many(ok))
    return [scorer.error_result(e) if e is not None else next(scored) for e in errors]
