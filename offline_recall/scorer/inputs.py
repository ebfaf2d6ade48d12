"""Where a run's context and ground truth come from, under the reference scorers' options."""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from ..data.fields import ground_truth_value, names_of
from ..errors import ConfigurationError
from .results import ScorerInput, check_scale

# C0 controls but tab, line feed and carriage return; DEL; and lone UTF-16 surrogates.
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")

ContextExtractor = Callable[[Any, Any], Sequence[str]]
"""Pulls the retrieved context out of a run's (input, output), e.g. tool results of an agent."""


class ScorerOptions(BaseModel):
    """What every scorer's options hold: how the score is scaled (0 or None means 1).

    The options of a scorer that reads no context; a scorer that reads it takes
    `ContextOptions`, which add where the context comes from.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)
    metric: ClassVar[str] = "the scorer"

    scale: float | None = 1

    @model_validator(mode="after")
    def _checks_the_scale(self) -> ScorerOptions:
        check_scale(self.scale)
        return self


class ContextOptions(ScorerOptions):
    """Where the context comes from and how the score is scaled (the reference's options).

    Give `context` (the retrieved chunks, the same for every run), `context_extractor`
    (a function of the run's input and output), or both: the extractor is then used only for
    agent-shaped runs. `scale` multiplies the score; 0 or None means 1.
    """

    context: list[str] | None = None
    context_extractor: ContextExtractor | None = None

    @model_validator(mode="after")
    def _needs_a_context_source(self) -> ContextOptions:
        if self.context is None and self.context_extractor is None:
            raise ConfigurationError(
                f"{self.metric} needs `context` (a list of strings) or `context_extractor`"
            )
        if self.context is not None and len(self.context) == 0:
            raise ConfigurationError("`context` is an empty list; give at least one chunk")
        return self


@dataclass(frozen=True)
class Chunk:
    """A context chunk and its position in the run's context list (blank chunks included)."""

    index: int
    text: str


def clean_text(text: str) -> str:
    """`text` with NUL bytes and other control characters replaced by a space.

    No engine sees them: tokenizers treat them inconsistently, and lone surrogates cannot be
    encoded at all. Tabs and line breaks are kept.
    """
    return _UNSAFE.sub(" ", text)


def _key(value: Mapping[str, Any], camel: str, snake: str) -> Any:
    return value.get(camel, value.get(snake))


def is_agent_input(value: Any) -> bool:
    """The reference's agent input: message arrays and an object of tagged system messages."""
    if not isinstance(value, Mapping):
        return False
    arrays = (
        ("inputMessages", "input_messages"),
        ("rememberedMessages", "remembered_messages"),
        ("systemMessages", "system_messages"),
    )
    tagged = _key(value, "taggedSystemMessages", "tagged_system_messages")
    return all(isinstance(_key(value, *a), list) for a in arrays) and isinstance(tagged, Mapping)


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("role"), str)
        and "content" in value
        and ("createdAt" in value or "created_at" in value)
    )


def is_agent_output(value: Any) -> bool:
    """The reference's agent output: a list of messages, each with id, role, content and
    createdAt (an empty list counts, as `Array.every` says)."""
    return isinstance(value, list) and all(_is_message(m) for m in value)


def is_agent_shaped(run: ScorerInput) -> bool:
    return is_agent_input(run.input) and is_agent_output(run.output)


INPUT_FIELDS = ("input", "output", "ground_truth", "context")
"""The fields of a scored item, each read from any of the names the command line detects."""


class ContextWarning(UserWarning):
    """A run carries its own context, so the scorer's context options are not used for it."""


def input_fields(
    raw: Mapping[str, Any], fields: Sequence[str] = INPUT_FIELDS
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `fields` a mapping holds, by their names here, and the keys it holds besides.

    Each field is read from any convention's name for it, as the command line reads a row
    (`context`, `retrieved_contexts` or `contexts`; a `ground_truths` list joined by
    newlines); two names of one field are refused. Other keys are returned as they are: no
    scorer reads them.
    """
    found: dict[str, str] = {}
    given: dict[str, Any] = {}
    others: dict[str, Any] = {}
    names = {name: field for field in fields for name in names_of(field)}
    for key, value in raw.items():
        field = names.get(key) if isinstance(key, str) else None
        if field is None:
            others[str(key)] = value
            continue
        if field in found:
            raise ConfigurationError(
                f"both '{found[field]}' and '{key}' given for the {field.replace('_', ' ')}; "
                "give one"
            )
        found[field] = key
        given[field] = ground_truth_value(key, value) if field == "ground_truth" else value
    context = given.get("context")
    if context is not None and (
        not isinstance(context, list) or not all(isinstance(c, str) for c in context)
    ):
        raise ConfigurationError(f"a run's `{found['context']}` must be a list of strings")
    return given, others


def as_input(raw: ScorerInput | Mapping[str, Any]) -> ScorerInput:
    """An item given as a `ScorerInput` or a mapping of its fields, under any convention's
    names (see `input_fields`); keys no scorer reads are kept as the item's `metadata`."""
    if isinstance(raw, ScorerInput):
        return raw
    if not isinstance(raw, Mapping):
        raise ConfigurationError(f"an item is a ScorerInput or a mapping, got {type(raw).__name__}")
    given, others = input_fields(raw)
    return ScorerInput.model_validate({**given, "metadata": others or None})


def _warn_options_unused(options: ContextOptions | None, own: list[str]) -> None:
    if options is None:
        return
    if options.context_extractor is not None:
        unused = "`context_extractor` is not called"
    elif options.context is not None and options.context != own:
        unused = "static `context` is not used"
    else:
        return
    warnings.warn(
        f"a run carries its own `context`: it is scored, and the options' {unused} for it",
        ContextWarning,
        stacklevel=_caller_level(),
    )


def _caller_level() -> int:
    """The stack level of the first frame outside this package: the warning names the user's
    line (`scorer.run(...)`, `run_evals(...)`), not ours."""
    package = str(Path(__file__).resolve().parents[1])
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def context_texts(options: ScorerOptions | None, run: ScorerInput) -> list[str]:
    """The run's context chunks in retrieved order, control characters replaced, blank ones
    kept.

    One rule for `scorer.run`, `run_evals` and the command line: a run that carries its own
    context (a dataset row's chunks) is scored against it, with a `ContextWarning` when the
    options name another source. Otherwise the extractor wins when it is the only source, or
    when both are given and the run is agent-shaped; else the static context.
    """
    chunks: Sequence[Any]
    if not isinstance(options, ContextOptions):
        options = None  # options without a context source
    if run.context is not None:
        chunks = run.context
        _warn_options_unused(options, run.context)
    elif options is None:
        raise ConfigurationError("the run carries no context and the scorer has no source")
    elif options.context_extractor is not None and (
        options.context is None or is_agent_shaped(run)
    ):
        chunks = options.context_extractor(run.input, run.output)
        if isinstance(chunks, str) or not isinstance(chunks, Sequence):
            raise ConfigurationError(
                f"context_extractor must return a list of strings, got {type(chunks).__name__}"
            )
    else:
        chunks = options.context or []
    bad = [type(c).__name__ for c in chunks if not isinstance(c, str)]
    if bad:
        raise ConfigurationError(
            f"context chunks must be strings, got {', '.join(sorted(set(bad)))}"
        )
    return [clean_text(c) for c in chunks]


def resolve_context(options: ScorerOptions | None, run: ScorerInput) -> list[Chunk]:
    """The run's non-blank context chunks, each with its position in the list it came from."""
    return [Chunk(i, c) for i, c in enumerate(context_texts(options, run)) if c.strip()]


def ground_truth_text(value: Any) -> str | None:
    """The ground truth as text, or None when there is none.

    None, blank text and an empty list or object are missing; so are `0`, `false` and NaN,
    which the reference treats as missing (JavaScript's falsy values). Other non-string
    ground truths (numbers, lists, objects) are judged as their JSON text. Control characters
    are replaced by spaces (see `clean_text`).
    """
    if value is None or value is False:
        return None
    if isinstance(value, int | float) and (value == 0 or math.isnan(value)):
        return None
    if isinstance(value, str):
        text = clean_text(value)
        return text if text.strip() else None
    if isinstance(value, list | dict | tuple) and len(value) == 0:
        return None
    return clean_text(json.dumps(value, ensure_ascii=False, default=str))


def _message_text(message: Any) -> str | None:
    """A chat message's text: its content as text, or its last text part."""
    content = message.get("content") if isinstance(message, Mapping) else message
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("content", "text"):
            if isinstance(content.get(key), str) and content[key]:
                return str(content[key])
        content = content.get("parts")
    if isinstance(content, list):
        texts = [p["text"] for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
        return str(texts[-1]) if texts else None
    return None


def _role_text(messages: Any, role: str) -> str | None:
    if not isinstance(messages, list):
        return None
    found = next((m for m in messages if isinstance(m, Mapping) and m.get("role") == role), None)
    return None if found is None else _message_text(found)


def question_text(value: Any) -> str | None:
    """The user's question in a run's input, as the reference reads it: the input as text,
    else the first user message (agent input or a message list), else a prompt or text."""
    if isinstance(value, str):
        return clean_text(value) if value.strip() else None
    if not isinstance(value, Mapping):
        return None
    for found in (
        _role_text(_key(value, "inputMessages", "input_messages"), "user"),
        _role_text(value.get("messages"), "user"),
        *(value.get(k) for k in ("prompt", "text", "input")),
    ):
        if isinstance(found, str) and found.strip():
            return clean_text(found)
    return None


def answer_text(value: Any) -> str | None:
    """The answer in a run's output, as the reference reads it: the output as text, else the
    first assistant message of a message list, else its text or content."""
    if isinstance(value, str):
        found: str | None = value
    elif isinstance(value, list):
        found = _role_text(value, "assistant")
    elif isinstance(value, Mapping) and value.get("role", "assistant") == "assistant":
        found = _message_text(value) or (
            value.get("text") if isinstance(value.get("text"), str) else None
        )
    else:
        found = None
    return clean_text(found) if found is not None and found.strip() else None
