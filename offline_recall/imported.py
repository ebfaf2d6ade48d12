"""Objects named by where they are defined, imported when first used: what keeps the command
line, the public API and the registries light until a name is asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def imported(path: str) -> Any:
    """The object `path` names ("package.module:name"), its module imported if it is not yet."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def lazy_names(
    namespace: MutableMapping[str, Any], modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for the names `modules` maps to the module each
    is imported from: a name's module is imported the first time the name is used, and the
    name kept in `namespace` (the package's `globals()`) for the next; `dir()` lists the
    package's `__all__`."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        """A public name, its module imported on first use and the name kept for the next."""
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        """The public names, as `dir()` lists them."""
        return sorted(namespace["__all__"])

    return __getattr__, __dir__
