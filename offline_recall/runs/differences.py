"""How two run identities differ, named by their dotted paths, and the installed versions of
the packages an engine computes with (both part of what identifies a run)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from typing import Any

DEPTH = 3
"""Differences are named down to this many dotted parts (a judge profile is one field)."""


def dotted_differences(a: Any, b: Any, path: str = "", depth: int = DEPTH) -> list[str]:
    """The dotted paths at which two JSON values differ, at most `depth` parts deep."""
    if isinstance(a, dict) and isinstance(b, dict) and depth > 0:
        out: list[str] = []
        for key in dict.fromkeys([*a, *b]):
            where = f"{path}.{key}" if path else str(key)
            out += dotted_differences(a.get(key), b.get(key), where, depth - 1)
        return out
    return [] if a == b else [path]


def _at(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def describe_differences(a: dict[str, Any], b: dict[str, Any], limit: int = 6) -> list[str]:
    """Each difference of two identities as `path` (with both values when they are short),
    the first `limit` of them, then how many more."""
    paths = dotted_differences(a, b)
    out = []
    for path in paths[:limit]:
        va, vb = _at(a, path), _at(b, path)
        short = all(isinstance(v, str | int | float | bool) or v is None for v in (va, vb))
        out.append(f"{path} {va} vs {vb}" if short and len(f"{va}{vb}") < 80 else path)
    if len(paths) > limit:
        out.append(f"and {len(paths) - limit} more")
    return out


def installed_versions(names: Sequence[str]) -> dict[str, str]:
    """The installed version of each named distribution that is present."""
    found: dict[str, str] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found
