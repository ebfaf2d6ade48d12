"""Scorers from other installed packages, found through the entry-point group
`offline_recall.scorers`.

A plugin's distribution declares, in its `pyproject.toml`:

    [project.entry-points."offline_recall.scorers"]
    my-scorer = "my_package:KIND"

The entry point's name is the scorer's id; its object is a `ScorerKind`. Plugins are loaded
once, the first time the registry is listed or asked for an id, never at import. A plugin that
cannot be loaded (an import error, an object that is not a `ScorerKind`, a bad id, an id that a
built-in scorer or an earlier plugin holds) is skipped with one line on stderr, and the other
scorers stay usable.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata

from .base import ScorerKind

GROUP = "offline_recall.scorers"
"""The entry-point group a package registers its scorers under."""

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""What a scorer id looks like: lower-case words joined by hyphens (`context-recall-scorer`)."""


@dataclass(frozen=True)
class Plugin:
    """A scorer an installed package registered, and where it came from."""

    kind: ScorerKind
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


def _check(entry: metadata.EntryPoint, taken: Mapping[str, object]) -> ScorerKind:
    """The entry point's scorer kind; raises ValueError or ImportError saying what is wrong."""
    if not ID.fullmatch(entry.name):
        raise ValueError("its name is not a scorer id (lower-case words joined by hyphens)")
    if entry.name in taken:
        raise ValueError(f"the id {entry.name} is taken by {taken[entry.name]}")
    kind = entry.load()
    if not isinstance(kind, ScorerKind):
        raise ValueError(f"{entry.value} is a {type(kind).__name__}, not a ScorerKind")
    if kind.id != entry.name:
        raise ValueError(f"{entry.value} has the id {kind.id!r}, not the entry point's name")
    if not kind.prompt_versions():
        raise ValueError(f"its prompts package {kind.prompts} holds no <version>.toml")
    return kind


def load_plugins(builtin: Mapping[str, ScorerKind]) -> tuple[dict[str, Plugin], list[BrokenPlugin]]:
    """Every scorer registered under `GROUP`, by id, and the entry points that were skipped;
    each skipped one is told on stderr in one line."""
    found: dict[str, Plugin] = {}
    broken: list[BrokenPlugin] = []
    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
        distribution = _distribution(entry)
        taken = {
            **{sid: "a built-in scorer" for sid in builtin},
            **{sid: p.distribution for sid, p in found.items()},
        }
        try:
            kind = _check(entry, taken)
        except Exception as e:  # a plugin's own failure: skip it, keep the others
            reason = " ".join(str(e).split()) or type(e).__name__
            if not isinstance(e, ValueError):
                reason = f"{type(e).__name__}: {reason}"
            skipped = BrokenPlugin(entry.name, distribution, reason)
            broken.append(skipped)
            print(f"offline-recall: warning: {skipped}", file=sys.stderr)
            continue
        found[kind.id] = Plugin(kind, distribution)
    return found, broken


class Registry(Mapping[str, ScorerKind]):
    """The scorers by id: the built-in ones, then the plugins' (loaded on first use)."""

    def __init__(self, builtin: Mapping[str, ScorerKind]) -> None:
        self.builtin: Mapping[str, ScorerKind] = dict(builtin)
        """The scorers this package ships, without loading any plugin."""
        self._plugins: dict[str, Plugin] | None = None
        self._broken: list[BrokenPlugin] = []

    def _all(self) -> dict[str, Plugin]:
        if self._plugins is None:
            self._plugins, self._broken = load_plugins(self.builtin)
        return self._plugins

    def __getitem__(self, scorer_id: str) -> ScorerKind:
        if scorer_id in self.builtin:
            return self.builtin[scorer_id]
        return self._all()[scorer_id].kind

    def __iter__(self) -> Iterator[str]:
        yield from self.builtin
        yield from self._all()

    def __len__(self) -> int:
        return len(self.builtin) + len(self._all())

    def source(self, scorer_id: str) -> str:
        """Where a scorer comes from: "built-in", or the distribution of its plugin."""
        if scorer_id in self.builtin:
            return "built-in"
        return self._all()[scorer_id].distribution

    @property
    def broken(self) -> list[BrokenPlugin]:
        """The plugins that were skipped, and why (loading them first if not yet done)."""
        self._all()
        return list(self._broken)

    def reload(self) -> None:
        """Forget the plugins found, so the next use looks for them again."""
        self._plugins, self._broken = None, []


__all__ = ["GROUP", "BrokenPlugin", "Plugin", "Registry", "load_plugins"]
