"""Where a run's context and ground truth come from."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import ConfigurationError
from .types import ContextRecallOptions, ScorerRun

# C0 controls but tab, line feed and carriage return; DEL; and lone UTF-16 surrogates.
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with NUL bytes and other control characters replaced by a space.

    No engine sees them: tokenizers treat them inconsistently, and lone surrogates cannot be
    encoded at all. Tabs and line breaks are kept.
    """
    return _UNSAFE.sub(" ", text)


def is_agent_input(value: Any) -> bool:
    """An agent's input bundle: a mapping that carries the conversation's input messages."""
    return isinstance(value, Mapping) and ("inputMessages" in value or "input_messages" in value)


def is_agent_output(value: Any) -> bool:
    """An agent's output: a list of messages, each a mapping with a role."""
    return isinstance(value, list) and all(isinstance(m, Mapping) and "role" in m for m in value)


def is_agent_shaped(run: ScorerRun) -> bool:
    return is_agent_input(run.input) and is_agent_output(run.output)


def resolve_context(options: ContextRecallOptions, run: ScorerRun) -> list[str]:
    """The context chunks for this run.

    The extractor wins when it is the only source, or when both are given and the run is
    agent-shaped; otherwise the static context is used. Empty chunks are dropped.
    """
    use_extractor = options.context_extractor is not None and (
        options.context is None or is_agent_shaped(run)
    )
    if use_extractor:
        assert options.context_extractor is not None
        chunks = options.context_extractor(run.input, run.output)
        if isinstance(chunks, str) or not isinstance(chunks, Sequence):
            raise ConfigurationError(
                f"context_extractor must return a list of strings, got {type(chunks).__name__}"
            )
    else:
        assert options.context is not None
        chunks = options.context
    bad = [type(c).__name__ for c in chunks if not isinstance(c, str)]
    if bad:
        raise ConfigurationError(
            f"context chunks must be strings, got {', '.join(sorted(set(bad)))}"
        )
    cleaned = (clean_text(c) for c in chunks)
    return [c for c in cleaned if c.strip()]


def ground_truth_text(value: Any) -> str | None:
    """The ground truth as text, or None when there is none (missing, None, blank, empty).

    Non-string ground truths (numbers, lists, objects) are serialised to JSON text. Control
    characters are replaced by spaces (see `clean_text`).
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = clean_text(value)
        return text if text.strip() else None
    if isinstance(value, (list, dict, tuple)) and len(value) == 0:
        return None
    return clean_text(json.dumps(value, ensure_ascii=False, default=str))
