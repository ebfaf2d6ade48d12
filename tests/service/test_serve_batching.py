"""The service's batching: one worker, batches up to the engine's window, a failing scorer's
runs failed alone, a request whose client left dropped before its batch, and a stop answered."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from offline_recall import FakeEngine
from offline_recall.data.dataset import Row
from offline_recall.runs.session import Scoring
from offline_recall.scorer.results import Progress, ScoreResult, ScorerInput, Status
from offline_recall.service.batcher import (
    Batcher,
    ScoringFailed,
    ServiceStopping,
    Worker,
    score_batch,
)


class Recording:
    """A scorer that scores a run by the length of its ground truth and records each batch."""

    progress: Progress | None = None

    def __init__(self, sid: str, fails: bool = False) -> None:
        self.id = self.name = self.description = sid
        self.fails = fails
        self.batches: list[list[Any]] = []

    def _result(self, score: float | None, reason: str, status: Status) -> ScoreResult:
        return ScoreResult(
            scorer=self.id,
            score=score,
            reason=reason,
            status=status,
            model_fingerprint="fake@0000000000000000",
            prompt_version="v1",
            judge_profile=None,
            library_version="0",
        )

    def run(self, run: ScorerInput | Mapping[str, Any]) -> ScoreResult:
        return self.run_many([run])[0]

    def run_many(
        self, runs: Sequence[ScorerInput | Mapping[str, Any]], *, progress: Progress | None = None
    ) -> Sequence[ScoreResult]:
        if self.fails:
            raise RuntimeError("the engine fell over")
        truths = [r.ground_truth for r in runs if isinstance(r, ScorerInput)]
        self.batches.append(truths)
        return [self._result(float(len(t)), f"read {t}", Status.OK) for t in truths]

    def error_result(self, message: str) -> ScoreResult:
        return self._result(None, message, Status.ERROR)


def row(truth: str) -> Row:
    return Row(line=1, ground_truth=truth, context=["c"])


def scoring(*scorers: Recording) -> Scoring:
    return Scoring(engine=FakeEngine(), scorers={s.id: s for s in scorers}, window=16)


def test_a_batch_scores_each_scorers_runs_in_one_pass_and_fails_a_failing_one_alone() -> None:
    good, bad = Recording("good"), Recording("bad", fails=True)
    runs = [("good", row("a")), ("bad", row("bb")), ("good", row("ccc"))]
    outcomes = score_batch(scoring(good, bad), "digest", runs)
    assert good.batches == [["a", "ccc"]]
    first, failed, third = outcomes
    assert isinstance(first, ScoreResult) and first.reason == "read a"
    assert isinstance(third, ScoreResult) and third.score == 3.0
    assert isinstance(failed, ScoringFailed)
    assert str(failed) == "scoring failed: RuntimeError: the engine fell over"


def test_concurrent_requests_are_scored_in_batches_up_to_the_window() -> None:
    scorer = Recording("good")
    worker = Worker()

    async def main() -> list[ScoreResult]:
        batcher = Batcher(scoring(scorer), worker, "digest", size=16, wait=0.01)
        batcher.start()
        try:
            return await asyncio.gather(*(batcher.submit("good", row("x" * n)) for n in range(40)))
        finally:
            await batcher.stop()

    try:
        results = asyncio.run(main())
    finally:
        worker.shutdown()
    assert [r.score for r in results] == [float(n) for n in range(40)]
    assert [len(b) for b in scorer.batches] == [16, 16, 8]


def test_a_request_whose_client_left_is_dropped_before_its_batch() -> None:
    scorer = Recording("good")
    worker = Worker()

    async def main() -> None:
        batcher = Batcher(scoring(scorer), worker, "digest", size=16)
        batcher.start()
        try:
            kept = batcher.submit("good", row("kept"))
            left = batcher.submit("good", row("left"))
            left.cancel()  # both queued, the batch not started yet
            assert (await kept).reason == "read kept"
        finally:
            await batcher.stop()

    try:
        asyncio.run(main())
    finally:
        worker.shutdown()
    assert scorer.batches == [["kept"]]


def test_a_batch_waits_for_requests_being_read_and_only_for_them() -> None:
    scorer = Recording("good")
    worker = Worker()

    async def main() -> None:
        batcher = Batcher(scoring(scorer), worker, "digest", size=16, wait=5)
        batcher.start()
        try:
            alone = batcher.submit("good", row("alone"))
            await alone  # nothing was being read: scored at once, without waiting
            with batcher.arriving():
                first = batcher.submit("good", row("first"))
                await asyncio.sleep(0.05)  # the batch has started and waits
                second = batcher.submit("good", row("second"))
            await asyncio.gather(first, second)
        finally:
            await batcher.stop()

    try:
        asyncio.run(asyncio.wait_for(main(), timeout=4))
    finally:
        worker.shutdown()
    assert scorer.batches == [["alone"], ["first", "second"]]


def test_a_stopping_service_answers_what_it_has_not_scored() -> None:
    worker = Worker()

    async def main() -> None:
        batcher = Batcher(scoring(Recording("good")), worker, "digest", size=16, wait=10)
        batcher.start()
        with batcher.arriving():  # the batch waits for a request being read
            waiting = batcher.submit("good", row("late"))
            queued = [batcher.submit("good", row(f"queued {n}")) for n in range(5)]
            await asyncio.sleep(0.01)
            await batcher.stop()
        for future in (waiting, *queued):
            with pytest.raises(ServiceStopping):
                await future
        with pytest.raises(ServiceStopping):
            batcher.submit("good", row("after"))

    try:
        asyncio.run(main())
    finally:
        worker.shutdown()
