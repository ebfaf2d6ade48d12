"""Stages of a scorer's batch that tell progress as they go."""

from __future__ import annotations

from ..engines.base import Done
from .results import Progress


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
