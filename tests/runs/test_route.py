"""The way from `offline-recall score FILE` to the engine is short: a reader follows one
call to the next without a wrapper, a store or a dispatch between. The command goes through
the same front door as `offline_recall.score` (`RunPlan.score`), then the run."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.cli.score import score
from offline_recall.engines.fake import FakeEngine

MOST_CALLS = 12
"""Calls from the `score` command to the engine, its `generate_json` counted, at most."""


def _calls_below(command: Any) -> list[str]:
    """The functions on the stack between `command`'s frame and the caller's caller."""
    names: list[str] = []
    frame = sys._getframe(2)
    while frame is not None and frame.f_code is not command.__code__:
        names.append(f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_qualname}")
        frame = frame.f_back
    assert frame is not None, "the engine was called outside the score command"
    return names


def test_score_reaches_the_engine_in_at_most_twelve_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    routes: list[list[str]] = []
    real = FakeEngine.generate_json

    def spy(self: FakeEngine, *args: Any, **kwargs: Any) -> Any:
        routes.append(_calls_below(inspect.unwrap(score.callback)))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(FakeEngine, "generate_json", spy)
    data = tmp_path / "rows.jsonl"
    truth = "The Louvre, which opened in 1793, is in Paris. It holds the Mona Lisa."
    row = {"input": "Where?", "ground_truth": truth, "context": ["The Louvre is in Paris."]}
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert routes, "the engine was not asked"
    longest = max(routes, key=len)
    assert len(longest) + 1 <= MOST_CALLS, "\n".join(reversed(longest))
