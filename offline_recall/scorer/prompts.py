"""What every scorer's prompts share: versioned data files beside the scorer's prompts module,
and texts fenced so that they cannot close the block that holds them."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from ..engines import Message, Prompt
from ..errors import ConfigurationError


class YesNoPrompt(BaseModel):
    """A yes/no question to the model: its system and user texts and the two answer words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: str
    user: str
    yes: str
    no: str


class VersionedPrompts(BaseModel):
    """A prompt set: the `version` that travels with every result, and the scorer's prompts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str


P = TypeVar("P", bound=VersionedPrompts)


@cache
def _delimiters(tags: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"<(\s*/?\s*)({'|'.join(map(re.escape, tags))})(\s*)>", re.IGNORECASE)


def fenced(text: str, tags: Sequence[str]) -> str:
    """`text` with the prompt's own delimiter tags defused, so it cannot close its block.

    `</context>` inside a context becomes `\u2039/context\u203a` (single angle quotes):
    readable, but not the delimiter.
    """
    return _delimiters(tuple(tags)).sub(
        lambda m: f"\u2039{m.group(1)}{m.group(2)}{m.group(3)}\u203a", text
    )


def chunk_prompt(messages: Sequence[Message], head: str, chunk: str, target: object) -> Prompt:
    """The prompt judging `chunk` against `target` (its text read by the judge's word signals),
    asked in `messages`; `head`, the prompt up to the chunk, is shared by every chunk judged
    against the same target."""
    return Prompt(
        messages=tuple(messages),
        shared=head,
        pair=(chunk, str(target)),
        fields=(chunk, str(target)),
    )


def versions(package: str) -> list[str]:
    """The prompt versions stored in `package` (one `<version>.toml` each)."""
    return sorted(
        f.name.removesuffix(".toml")
        for f in resources.files(package).iterdir()
        if f.name.endswith(".toml")
    )


def prompt_file(package: str, version: str) -> bytes:
    """The data file of prompt set `version` in `package`; an unknown version lists the known."""
    source = resources.files(package).joinpath(f"{version}.toml")
    if not source.is_file():
        known = ", ".join(versions(package))
        raise ConfigurationError(f"unknown prompt version {version!r}; known: {known}")
    return source.read_bytes()


def load(package: str, version: str, model: type[P]) -> P:
    """Prompt set `version` of `package` read as `model`; an unknown version lists the known
    ones, and a file declaring another version is refused."""
    prompts = model.model_validate(tomllib.loads(prompt_file(package, version).decode("utf-8")))
    if prompts.version != version:
        raise ConfigurationError(f"{version}.toml declares version {prompts.version!r}")
    return prompts
