"""The bulk run behind `offline-recall score`: rows in windows, each window committed to a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from .dataset import Row, RowError
from .evals import windows
from .formats import Dataset
from .results import ResultRecord
from .scorer import ContextRecallScorer
from .store import RunStore
from .types import RecallResult, ScorerRun


def score_rows(
    scorer: ContextRecallScorer, rows: Sequence[Row | RowError]
) -> Iterator[tuple[Row | RowError, RecallResult]]:
    """Each row with its result; a row error becomes an error result without a model call."""
    runs = [
        ScorerRun(input=r.input, output=r.context, ground_truth=r.ground_truth)
        for r in rows
        if isinstance(r, Row)
    ]
    scored = iter(scorer.run_many(runs))
    for r in rows:
        yield r, (scorer.error_result(r.message) if isinstance(r, RowError) else next(scored))


def score_into(
    scorer: ContextRecallScorer,
    dataset: Dataset,
    store: RunStore,
    on_window: Callable[[int], None] | None = None,
) -> int:
    """Score the rows `store` does not hold yet, committing one window at a time.

    `on_window` is called with the number of rows done so far (stored earlier ones included).
    Returns the number of rows scored now.
    """
    done = store.done()
    pending = (r for r in dataset.rows() if r.line not in done)
    count = len(done)
    if on_window is not None:
        on_window(count)
    scored = 0
    for window in windows(pending, scorer.backend.info.window):
        store.add(ResultRecord.of(row, result) for row, result in score_rows(scorer, window))
        scored += len(window)
        if on_window is not None:
            on_window(count + scored)
    return scored
