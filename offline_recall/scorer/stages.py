"""What every scorer does around its pipeline: a batch whose failure is isolated to the run
that causes it, and stages that tell progress as they go."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..engines.base import Done
from ..errors import OfflineRecallError
from .guard import StepFailed
from .results import Progress, ScoreResult, ScorerInput

R = TypeVar("R", bound=ScoreResult)
AnyInput = ScorerInput | Mapping[str, Any]


def isolated(
    runs: Sequence[AnyInput],
    score_batch: Callable[[Sequence[AnyInput]], list[R]],
    error_result: Callable[[str], R],
) -> list[R]:
    """`score_batch(runs)`; if the engine fails on the batch as a whole, the runs are scored
    one at a time, so that only a run that breaks it alone becomes an error result. Errors a
    user must fix (a missing model, a bad option) still stop the run."""
    try:
        return score_batch(runs)
    except OfflineRecallError:
        raise
    except Exception:
        return [_alone(run, score_batch, error_result) for run in runs]


def _alone(
    run: AnyInput,
    score_batch: Callable[[Sequence[AnyInput]], list[R]],
    error_result: Callable[[str], R],
) -> R:
    try:
        return score_batch([run])[0]
    except OfflineRecallError:
        raise
    except StepFailed as e:
        return error_result(str(e))
    except Exception as e:
        return error_result(f"{type(e).__name__}: {e}")


def stage(progress: Progress | None, name: str, total: int) -> Done | None:
    """A counter for one stage of a batch that tells `progress` (if any) as work is done."""
    if progress is None:
        return None
    tell = progress
    count = 0
    tell(name, 0, total)

    def done(more: int) -> None:
        nonlocal count
        count += more
        tell(name, count, total)

    return done
