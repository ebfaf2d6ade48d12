"""The base of the package's records: pydantic models that are immutable and refuse unknown
fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """A record that cannot change once built and refuses fields it does not declare."""

    model_config = ConfigDict(extra="forbid", frozen=True)
