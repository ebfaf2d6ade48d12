"""An engine started the first time it is asked anything, so a run whose scorers ask no model
(rules over a row's own fields) never loads one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ConfigurationError
from .base import Done, Engine, EngineIdentity, Failed, JsonOutput, Prompt


class DeferredEngine:
    """An `Engine` that starts the real one (`start`) on first use; started, it must report
    `fingerprint`, the one the run resolved. Closing an engine never started starts nothing."""

    def __init__(self, start: Callable[[], Engine], fingerprint: str) -> None:
        self._start = start
        self.fingerprint = fingerprint
        self._engine: Engine | None = None

    @property
    def started(self) -> bool:
        return self._engine is not None

    def _started(self) -> Engine:
        if self._engine is None:
            engine = self._start()
            if engine.identity.fingerprint != self.fingerprint:
                engine.close()
                raise ConfigurationError(
                    f"the engine runs {engine.identity.fingerprint}, the run names "
                    f"{self.fingerprint}"
                )
            self._engine = engine
        return self._engine

    @property
    def identity(self) -> EngineIdentity:
        return self._started().identity

    def count_tokens(self, text: str) -> int:
        return self._started().count_tokens(text)

    def prompt_tokens(self, prompt: Prompt) -> int:
        return self._started().prompt_tokens(prompt)

    def generate_json(
        self, prompts: Sequence[Prompt], output: JsonOutput, *, done: Done | None = None
    ) -> list[str | Failed]:
        return self._started().generate_json(prompts, output, done=done)

    def answer_probabilities(
        self, prompts: Sequence[Prompt], answers: Sequence[str], *, done: Done | None = None
    ) -> list[tuple[float, ...] | Failed]:
        return self._started().answer_probabilities(prompts, answers, done=done)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()


__all__ = ["DeferredEngine"]
