"""Many concurrent requests, one scoring worker: requests queue, and the worker takes what
has arrived as one batch into the engine.

The engine is used from one thread only (the worker's, which also started it), so engines that
are not thread-safe are safe here. A request waits in the queue while a batch scores; when the
worker is free it takes what is queued, waiting up to `wait` seconds for requests still being
read to join (none when none is), and scores up to `size` runs together, grouped by scorer,
through the path `score` takes (`runs.local.score_window`). A batch also holds at most
`work` judgments (the first request always joins): one large request is scored alone, and the
requests behind it wait for at most about that much. A request whose client went away before
its batch started is dropped from it; one whose batch fails gets the failure as its own
answer. On a stop (`halt`), every request not answered yet, queued or in the batch scoring,
is answered `ServiceStopping` at once; the batch on the worker ends on its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from ..data.dataset import Row
from ..runs.local import score_window
from ..runs.session import Scoring
from ..scorer.results import ScoreResult
from . import MAX_WORK

T = TypeVar("T")

POLL = 0.0005
"""Seconds between looks at the queue while a batch waits for requests being read."""


class ScoringFailed(Exception):
    """The batch a request was scored in raised: the message says what."""


class ServiceStopping(Exception):
    """The service stopped before the request was scored."""


@dataclass(eq=False)
class _Job:
    scorer: str
    row: Row
    done: asyncio.Future[ScoreResult]
    work: int = 1


Outcome = ScoreResult | ScoringFailed


class Worker:
    """The one thread that starts the engine, scores every batch and closes it."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="offline-recall-scoring"
        )

    def call(self, fn: Callable[[], T]) -> T:
        """`fn()` on the worker's thread, waited for here."""
        return self._thread.submit(fn).result()

    async def run(self, fn: Callable[[], T]) -> T:
        """`fn()` on the worker's thread, awaited."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn)

    def shutdown(self) -> None:
        self._thread.shutdown(wait=True)


def score_batch(
    scoring: Scoring, spec_digest: str, runs: Sequence[tuple[str, Row]]
) -> list[Outcome]:
    """Each (scorer id, row)'s result, the rows of one scorer scored in one pass; a scorer's
    pass that raises is a `ScoringFailed` for each of its rows."""
    outcomes: dict[int, Outcome] = {}
    by_scorer: dict[str, list[int]] = {}
    for index, (sid, _) in enumerate(runs):
        by_scorer.setdefault(sid, []).append(index)
    for sid, indexes in by_scorer.items():
        alone = dataclasses.replace(scoring, scorers={sid: scoring.scorers[sid]})
        rows = [runs[i][1].model_copy(update={"line": n}) for n, i in enumerate(indexes, start=1)]
        try:
            records = score_window(alone, rows, spec_digest)
        except Exception as e:
            failed = ScoringFailed(f"scoring failed: {type(e).__name__}: {e}")
            for i in indexes:
                outcomes[i] = failed
            continue
        for i, record in zip(indexes, records, strict=True):
            outcomes[i] = record.results[sid]
    return [outcomes[i] for i in range(len(runs))]


class Batcher:
    """Queues requests and scores them in batches on `worker`, with `scoring`'s scorers."""

    def __init__(
        self,
        scoring: Scoring,
        worker: Worker,
        spec_digest: str,
        *,
        size: int,
        wait: float = 0.005,
        work: int = MAX_WORK,
    ) -> None:
        self._scoring = scoring
        self._worker = worker
        self._digest = spec_digest
        self._size = max(1, size)
        self._wait = wait
        self._work_budget = max(1, work)
        self._halted = False
        self._next: _Job | None = None
        """A request taken from the queue that did not fit its batch: it starts the next."""
        self._queue: asyncio.Queue[_Job] | None = None
        self._task: asyncio.Task[None] | None = None
        self._arriving = 0
        self._taken: list[_Job] = []
        """The batch being gathered or scored: answered `ServiceStopping` if the service stops."""
        self.batches = 0
        """Batches scored so far."""
        self.runs = 0
        """Runs scored so far, in those batches."""

    def start(self) -> None:
        """Start taking requests (in the running event loop)."""
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(self._work())

    def halt(self) -> None:
        """Take no more requests, and answer every one not answered yet (queued, or in the
        batch being scored) `ServiceStopping` now: a stop waits for no batch to answer."""
        self._halted = True
        unanswered = list(self._taken)
        if self._next is not None:
            unanswered.append(self._next)
            self._next = None
        while self._queue is not None and not self._queue.empty():
            unanswered.append(self._queue.get_nowait())
        for job in unanswered:
            if not job.done.done():
                job.done.set_exception(ServiceStopping("the service is stopping"))

    async def stop(self) -> None:
        """Stop the worker; requests not answered yet are answered `ServiceStopping`."""
        self.halt()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self.halt()
        self._queue = None

    @contextmanager
    def arriving(self) -> Iterator[None]:
        """While a request is being read: a batch about to start waits for it (up to `wait`)."""
        self._arriving += 1
        try:
            yield
        finally:
            self._arriving -= 1

    def submit(self, scorer: str, row: Row, work: int = 1) -> asyncio.Future[ScoreResult]:
        """Queue `row` for `scorer`, asking up to `work` judgments: the future is its result,
        from whichever batch it joins. Cancelling the future drops the request if its batch
        has not started."""
        if self._queue is None or self._halted:
            raise ServiceStopping("the service is stopping")
        done: asyncio.Future[ScoreResult] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Job(scorer, row, done, max(1, work)))
        return done

    async def _batch(self) -> list[_Job]:
        """The next batch, up to `size` requests and `work` judgments: the first waited for,
        then those queued, and those still being read when it started, for up to `wait`
        seconds."""
        assert self._queue is not None
        first, self._next = self._next, None
        self._taken = [first if first is not None else await self._queue.get()]
        work = self._taken[0].work
        waited = 0.0
        while len(self._taken) < self._size:
            if not self._queue.empty():
                job = self._queue.get_nowait()
                if work + job.work > self._work_budget:
                    self._next = job  # it starts the next batch
                    break
                self._taken.append(job)
                work += job.work
            elif self._arriving and waited < self._wait:
                await asyncio.sleep(POLL)
                waited += POLL
            else:
                break
        return self._taken

    async def _work(self) -> None:
        while True:
            live = [job for job in await self._batch() if not job.done.done()]
            if not live:
                continue
            runs = [(job.scorer, job.row) for job in live]
            self.batches += 1
            self.runs += len(live)
            try:
                outcomes = await self._worker.run(
                    functools.partial(score_batch, self._scoring, self._digest, runs)
                )
            except Exception as e:  # the worker itself failed: each request says so
                failed = ScoringFailed(f"scoring failed: {type(e).__name__}: {e}")
                outcomes = [failed] * len(live)
            for job, outcome in zip(live, outcomes, strict=True):
                if job.done.done():  # its client went away while the batch scored
                    continue
                if isinstance(outcome, ScoringFailed):
                    job.done.set_exception(outcome)
                else:
                    job.done.set_result(outcome)
            self._taken = []
