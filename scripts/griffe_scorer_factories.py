"""A Griffe extension for the API reference (mkdocs.yml): each built-in scorer's `create_*`
function is made at import by `scorer_factory` (offline_recall/scorer/construction.py), so
reading the source finds a call, not a function; the reference documents the function itself,
its signature and docstring read from the imported package."""

from __future__ import annotations

from typing import Any

import griffe


class ScorerFactories(griffe.Extension):
    """Replaces each module attribute made by `scorer_factory(...)` with the function it is."""

    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        made = [
            name
            for name, member in mod.members.items()
            if isinstance(member, griffe.Attribute)
            and str(member.value).startswith("scorer_factory(")
        ]
        if made:
            inspected = griffe.inspect(mod.path)
            for name in made:
                mod.set_member(name, inspected[name])
