"""Timers around the vLLM engine's step parts, for profiling one batch of generations in
process, and the same generations run bare (no grammar): the engine's limit for that work."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast


@dataclass
class Profile:
    seconds: dict[str, float] = field(default_factory=dict)
    grammars: int = 0
    steps: list[tuple[int, int, int]] = field(default_factory=list)
    """Per step: requests in it, prompt tokens, generated tokens."""
    generated: list[tuple[list[int], int]] = field(default_factory=list)
    """Per request: its prompt ids and the number of tokens it generated."""

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds


def _timed(profile: Profile, name: Callable[..., str] | str, fn: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        value = fn(*args, **kwargs)
        label = name(*args, value=value) if callable(name) else name
        profile.add(label, time.perf_counter() - started)
        return value

    return wrapper


@contextmanager
def profiled(engine: Any) -> Iterator[Profile]:
    """Wrap the in-process engine core's step parts with timers for the block's duration."""
    profile = Profile()
    client = engine.llm.llm_engine.engine_core
    core = getattr(client, "engine_core", None)
    # With the engine core in another process only the whole engine call is timed here.
    scheduler = core.scheduler if core is not None else None
    executor = core.model_executor if core is not None else None
    manager = scheduler.structured_output_manager if scheduler is not None else None
    saved: list[tuple[Any, str]] = [(engine, "_generate")]
    if core is not None:
        saved += [
            (scheduler, "schedule"),
            (executor, "execute_model"),
            (scheduler, "get_grammar_bitmask"),
            (executor, "sample_tokens"),
            (scheduler, "update_from_output"),
            (manager, "_create_grammar"),
        ]
    originals = [(obj, name, obj.__dict__.get(name)) for obj, name in saved]
    prefill_step = [False]

    def schedule(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        out = original_schedule(*args, **kwargs)
        profile.add("schedule", time.perf_counter() - started)
        counts = list(out.num_scheduled_tokens.values())
        prompt = sum(n for n in counts if n > 1)
        decode = sum(1 for n in counts if n == 1)
        prefill_step[0] = prompt > 0
        if counts:
            profile.steps.append((len(counts), prompt, decode))
        return out

    def grammar(*args: Any, **kwargs: Any) -> Any:
        profile.grammars += 1
        return timed_grammar(*args, **kwargs)

    def generate(prompts: list[list[int]], params: Any) -> list[Any]:
        started = time.perf_counter()
        outputs = original_generate(prompts, params)
        profile.add("engine, whole", time.perf_counter() - started)
        profile.generated += [
            (list(p), len(o.outputs[0].token_ids)) for p, o in zip(prompts, outputs, strict=True)
        ]
        return cast(list[Any], outputs)

    original_generate = engine._generate
    engine._generate = generate
    if scheduler is None or executor is None or manager is None:
        try:
            yield profile
        finally:
            del engine._generate
        return
    original_schedule = scheduler.schedule
    timed_grammar = _timed(profile, "grammar set-up", manager._create_grammar)
    scheduler.schedule = schedule
    executor.execute_model = _timed(
        profile,
        lambda *a, value: "forward, prefill" if prefill_step[0] else "forward, decode",
        executor.execute_model,
    )
    scheduler.get_grammar_bitmask = _timed(
        profile, "bitmask + sample", scheduler.get_grammar_bitmask
    )
    executor.sample_tokens = _timed(profile, "bitmask + sample", executor.sample_tokens)
    scheduler.update_from_output = _timed(profile, "update", scheduler.update_from_output)
    manager._create_grammar = grammar
    try:
        yield profile
    finally:
        for obj, name, original in originals:
            if original is None:
                delattr(obj, name)
            else:
                setattr(obj, name, original)


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
