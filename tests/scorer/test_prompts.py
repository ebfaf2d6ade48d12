"""The prompt set is data; its rendered messages are pinned by a snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_recall import ConfigurationError
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.scorer.claims.prompts import load_prompts

SNAPSHOT = Path(__file__).parents[1] / "snapshots" / "prompts_v1.json"


def rendered() -> dict[str, object]:
    p = load_prompts("v1")
    return {
        "extract": p.extract_messages("The sky is blue."),
        "judge": p.judge_messages("The sky is blue today.", "The sky is blue."),
    }


def test_v1_messages_match_the_snapshot() -> None:
    assert rendered() == json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_judge_prompt_puts_the_context_before_the_claim() -> None:
    user = load_prompts("v1").judge_messages("CONTEXT", "CLAIM")[-1]["content"]
    assert user.index("CONTEXT") < user.index("CLAIM")


def test_unknown_version_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="known: v1"):
        load_prompts("v999")
    assert "v1" in ContextRecallScorer.prompt_versions()


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_judge_prompt_shares_everything_before_the_claim(version: str) -> None:
    """The shared head is the same for every claim of a context and ends where the claim
    starts, so an engine can compute it once for all of them."""
    prompts = load_prompts(version)
    first = prompts.judge_prompt("The sky is blue today.", "The sky is blue.")
    second = prompts.judge_prompt("The sky is blue today.", "It rains.")
    assert first.shared == second.shared
    content = first.messages[-1]["content"]
    assert content.startswith(first.shared)
    assert content[len(first.shared) :].startswith("The sky is blue.")
    assert first.fields == ("The sky is blue today.", "The sky is blue.")
