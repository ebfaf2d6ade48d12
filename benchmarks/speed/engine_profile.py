"""The vLLM engine's generations in a block recorded, and the same generations run bare (no
grammar, one batch): the engine's limit for that work, against which the throughput benchmark
reports claim extraction's decode efficiency."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast


@dataclass
class Profile:
    generated: list[tuple[list[int], int]] = field(default_factory=list)
    """Per request: its prompt ids and the number of tokens it generated."""


@contextmanager
def profiled(engine: Any) -> Iterator[Profile]:
    """Record every generation the in-process vLLM engine makes during the block."""
    profile = Profile()
    original = engine._generate

    def generate(prompts: list[list[int]], params: Any) -> list[Any]:
        outputs = original(prompts, params)
        profile.generated += [
            (list(p), len(o.outputs[0].token_ids)) for p, o in zip(prompts, outputs, strict=True)
        ]
        return cast(list[Any], outputs)

    engine._generate = generate
    try:
        yield profile
    finally:
        del engine._generate


def bare_seconds(engine: Any, generated: list[tuple[list[int], int]]) -> float:
    """The same prompts in one batch with no grammar, each generating as many tokens as it
    did under the grammar (at least one)."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    inputs = [TokensPrompt(prompt_token_ids=ids) for ids, _ in generated]
    params = [
        SamplingParams(temperature=0.0, max_tokens=max(1, n), ignore_eos=True) for _, n in generated
    ]
    engine.llm.reset_prefix_cache()
    started = time.perf_counter()
    engine.llm.generate(inputs, params, use_tqdm=False)
    return time.perf_counter() - started
