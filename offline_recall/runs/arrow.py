"""Arrow types read off pydantic models, so a result file's Parquet schema is written once: in
the result models themselves."""

from __future__ import annotations

import types
from collections.abc import Collection
from enum import Enum
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel


def arrow_type(annotation: Any) -> Any:
    """The Arrow type that holds values of `annotation`.

    Optional values are nullable columns of their type; free-form values (`Any`, and a mapping
    of names to them) are text (their JSON, unless they are text); enums are their string
    values; a tuple or list of items is a list; a model is a struct of its fields.
    """
    import pyarrow as pa

    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType):
        given = [a for a in args if a is not type(None)]
        if len(given) != 1:
            raise TypeError(f"no Arrow type for the union {annotation!r}")
        return arrow_type(given[0])
    if origin in (tuple, list):
        items = [a for a in args if a is not Ellipsis]
        if len(items) != 1:
            raise TypeError(f"no Arrow type for {annotation!r}: give one item type")
        return pa.list_(arrow_type(items[0]))
    if annotation is Any or (origin is dict and args == (str, Any)):
        return pa.string()
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return pa.struct(arrow_fields(annotation))
        if issubclass(annotation, Enum) and issubclass(annotation, str):
            return pa.string()
        simple = {bool: pa.bool_(), int: pa.int64(), float: pa.float64(), str: pa.string()}
        if annotation in simple:
            return simple[annotation]
    raise TypeError(f"no Arrow type for {annotation!r}")


def arrow_fields(model: type[BaseModel], skip: Collection[str] = ()) -> list[tuple[str, Any]]:
    """The Arrow fields of `model`'s fields, in their declared order, less those in `skip`."""
    return [
        (name, arrow_type(field.annotation))
        for name, field in model.model_fields.items()
        if name not in skip
    ]
