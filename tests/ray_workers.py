"""Set-up of the Ray workers the tests start: the fake engine can be told to kill its worker.

When the file named by $OFFLINE_RECALL_TEST_KILL exists, the first worker whose fake engine is
asked for verdicts a second time takes the file (a rename: exactly one worker does) and exits
at once, mid-shard, as a worker killed by its node would. Otherwise the engine is the fake
engine, unchanged.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from offline_recall.engines import ENGINES, Engine
from offline_recall.engines.manifests import ModelManifest

KILL = "OFFLINE_RECALL_TEST_KILL"


def _die_if_told() -> None:
    marker = os.environ.get(KILL)
    if not marker:
        return
    try:
        os.rename(marker, marker + ".taken")
    except FileNotFoundError:
        return
    os._exit(1)


def setup() -> None:
    """Ray's worker_process_setup_hook: wrap the fake engine's factory in every worker."""
    kind = ENGINES["fake"]
    build = kind.factory

    def factory(manifest: ModelManifest, options: Any) -> Engine:
        engine = build(manifest, options)
        answer = engine.answer_probabilities
        calls = 0

        def answer_probabilities(
            prompts: Sequence[Any], answers: Sequence[str], **kwargs: Any
        ) -> Any:
            nonlocal calls
            calls += 1
            if calls > 1:
                _die_if_told()
            return answer(prompts, answers, **kwargs)

        engine.answer_probabilities = answer_probabilities  # type: ignore[method-assign]
        return engine

    ENGINES["fake"] = dataclasses.replace(kind, factory=factory)
