"""Objects named by where they are defined, imported when first used: what keeps the command
line, the public API and the registries light until a name is asked for."""

from __future__ import annotations

import importlib
from typing import Any


def imported(path: str) -> Any:
    """The object `path` names ("package.module:name"), its module imported if it is not yet."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
