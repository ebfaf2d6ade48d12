"""The run calibrated: resolved for the one scorer whose judge is fitted, and its engines
started for the judging of the labelled pairs, each as `score` does it (`score.resolve`,
`score.session`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...engines import AUTO
from ...errors import ConfigurationError
from ...judging.profile import UnreadableProfile
from ...paths import cache_root
from ...scorer.registry import RECALL
from ..resolve import ResolvedRun
from ..session import Scoring, resolve, session
from ..spec import RunSpec


def _silent(_: str) -> None:
    pass


def calibration_run(
    model: str,
    *,
    scorer_id: str = RECALL,
    backend: str = AUTO,
    engine_options: Mapping[str, Any] | None = None,
    set_aside: bool = False,
    say: Callable[[str], None] = _silent,
) -> ResolvedRun:
    """The run whose judge `calibrate` fits: `model` on `backend`, scoring `scorer_id` alone
    (extracting nothing). An installed profile that cannot be read is what calibration
    replaces: with `set_aside` it is renamed `*.unreadable` (`say` tells where) and the run
    resolved without it; without, the error says so."""
    aside: set[Path] = set()
    while True:
        try:
            return resolve(
                [scorer_id],
                model=model,
                backend=backend,
                engine_options=engine_options,
                extracting=False,
            )
        except UnreadableProfile as e:
            installed = e.path.parent == cache_root() / "profiles"
            if not installed or e.path in aside:
                raise
            if not set_aside:
                raise ConfigurationError(
                    f"{e}; calibrate --force sets it aside and installs the new fit"
                ) from None
            moved = _set_aside(e)
            aside.add(e.path)
            say(f"set the unreadable profile {e.path.name} aside as {moved}")


def _set_aside(unreadable: UnreadableProfile) -> Path:
    """The unreadable profile renamed `*.unreadable`, where it now is."""
    aside = unreadable.path.with_name(unreadable.path.name + ".unreadable")
    try:
        unreadable.path.replace(aside)
    except OSError as moved:
        raise ConfigurationError(
            f"{unreadable}; it cannot be set aside ({moved.strerror}): delete it"
        ) from None
    return aside


@contextmanager
def started(spec: RunSpec | ResolvedRun, scoring: Scoring | None) -> Iterator[Scoring]:
    """`scoring` if given (left open), else the spec's run started here and closed after."""
    if scoring is not None:
        yield scoring
        return
    built = session(spec)
    try:
        yield built
    finally:
        built.close()
