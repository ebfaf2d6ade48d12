"""Scorers from other installed packages, found through the entry-point group
`offline_recall.scorers`.

A plugin's distribution declares, in its `pyproject.toml`:

    [project.entry-points."offline_recall.scorers"]
    my-scorer = "my_package:MyScorer"

The entry point's name is the scorer's id; its object is the scorer's class (a subclass of
`pipeline.Pipeline`). Plugins are loaded once, the first time the registry is listed or asked
for an id, never at import. A plugin that cannot be loaded (an import error, an object that is
not a scorer class, a bad id, an id that a built-in scorer or an earlier plugin holds, a
package that exits or raises KeyboardInterrupt as it is imported) is skipped with one line on
stderr, and the other scorers stay usable. A class that lacks a
member every scorer defines is skipped the same way, its line naming the member (see
`Pipeline.unfinished`), rather than failing later, after a model has loaded.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..imported import imported

if TYPE_CHECKING:
    from importlib import metadata

    from .pipeline import ScorerClass

GROUP = "offline_recall.scorers"
"""The entry-point group a package registers its scorers under."""

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""What a scorer id looks like: lower-case words joined by hyphens (`context-recall-scorer`)."""


@dataclass(frozen=True)
class Plugin:
    """A scorer an installed package registered, and where it came from."""

    scorer: ScorerClass
    distribution: str
    """The name of the distribution that declares the entry point."""


@dataclass(frozen=True)
class BrokenPlugin:
    """An entry point that could not be loaded as a scorer, and why."""

    name: str
    distribution: str
    message: str

    def __str__(self) -> str:
        return f"scorer plugin {self.name!r} from {self.distribution} skipped: {self.message}"


def _distribution(entry: metadata.EntryPoint) -> str:
    found = entry.dist
    return found.name if found is not None else "an unknown distribution"


def _check(entry: metadata.EntryPoint, taken: Mapping[str, object]) -> ScorerClass:
    """The entry point's scorer class; raises ValueError or ImportError saying what is wrong."""
    if not ID.fullmatch(entry.name):
        raise ValueError("its name is not a scorer id (lower-case words joined by hyphens)")
    if entry.name in taken:
        raise ValueError(f"the id {entry.name} is taken by {taken[entry.name]}")
    from .pipeline import Pipeline

    found = entry.load()
    if not (isinstance(found, type) and issubclass(found, Pipeline)):
        what = (
            f"the class {found.__name__}"
            if isinstance(found, type)
            else f"a {type(found).__name__}"
        )
        raise ValueError(f"{entry.value} is {what}, not a scorer class (a Pipeline subclass)")
    if (lacking := found.unfinished()) is not None:
        raise ValueError(f"{entry.value}: {lacking}")
    if found.id != entry.name:
        raise ValueError(f"{entry.value} has the id {found.id!r}, not the entry point's name")
    return found


def load_plugins(
    builtin: Iterable[str], warn: bool = True
) -> tuple[dict[str, Plugin], list[BrokenPlugin]]:
    """Every scorer registered under `GROUP`, by id, and the entry points that were skipped;
    each skipped one is told on stderr in one line (unless not `warn`: the caller lists
    them)."""
    found: dict[str, Plugin] = {}
    broken: list[BrokenPlugin] = []
    from importlib import metadata

    from .guard import Guard, StepFailed

    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
        distribution = _distribution(entry)
        taken = {
            **{sid: "a built-in scorer" for sid in builtin},
            **{sid: p.distribution for sid, p in found.items()},
        }
        try:
            with Guard(None) as guard:  # its exit is its failure too; the user's Ctrl-C is not
                scorer = guard.stage("loading it", _check, entry, taken)
        except Exception as e:  # a plugin's own failure: skip it, keep the others
            reason = " ".join(str(e).split()) or type(e).__name__
            if not isinstance(e, ValueError | StepFailed):
                reason = f"{type(e).__name__}: {reason}"
            skipped = BrokenPlugin(entry.name, distribution, reason)
            broken.append(skipped)
            if warn:
                print(f"offline-recall: warning: {skipped}", file=sys.stderr)
            continue
        found[scorer.id] = Plugin(scorer, distribution)
    return found, broken


class Registry(Mapping[str, "ScorerClass"]):
    """The scorer classes by id: the built-in ones (each imported when first asked for), then
    the plugins' (loaded on first use)."""

    def __init__(self, builtin: Mapping[str, str]) -> None:
        self.builtin_paths: dict[str, str] = dict(builtin)
        """The scorers this package ships: id -> "module:Class", imported when first used."""
        self._builtin: dict[str, ScorerClass] = {}
        self._plugins: dict[str, Plugin] | None = None
        self._broken: list[BrokenPlugin] = []

    def _all(self, warn: bool = True) -> dict[str, Plugin]:
        if self._plugins is None:
            self._plugins, self._broken = load_plugins(self.builtin_paths, warn)
        return self._plugins

    def _builtin_class(self, scorer_id: str) -> ScorerClass:
        if scorer_id not in self._builtin:
            self._builtin[scorer_id] = imported(self.builtin_paths[scorer_id])
        return self._builtin[scorer_id]

    @property
    def builtin(self) -> dict[str, ScorerClass]:
        """The scorers this package ships, by id, without loading any plugin."""
        return {scorer_id: self._builtin_class(scorer_id) for scorer_id in self.builtin_paths}

    def __getitem__(self, scorer_id: str) -> ScorerClass:
        if scorer_id in self.builtin_paths:
            return self._builtin_class(scorer_id)
        return self._all()[scorer_id].scorer

    def __iter__(self) -> Iterator[str]:
        yield from self.builtin_paths
        yield from self._all()

    def __len__(self) -> int:
        return len(self.builtin_paths) + len(self._all())

    def source(self, scorer_id: str) -> str:
        """Where a scorer comes from: "built-in", or the distribution of its plugin."""
        if scorer_id in self.builtin_paths:
            return "built-in"
        return self._all()[scorer_id].distribution

    @property
    def broken(self) -> list[BrokenPlugin]:
        """The plugins that were skipped, and why. Loading them first if not yet done, it
        prints no warning: the caller lists them, so each is said once."""
        self._all(warn=False)
        return list(self._broken)

    def reload(self) -> None:
        """Forget the plugins found, so the next use looks for them again."""
        self._plugins, self._broken = None, []


__all__ = ["GROUP", "BrokenPlugin", "Plugin", "Registry", "load_plugins"]
