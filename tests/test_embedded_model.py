"""The real embedded model (SmolLM2-135M-Instruct) on the transformers backend.

The model is converted into a fresh cache and loaded once for the session. The tiny model is
not a trustworthy judge, so these tests check the machinery, not the verdicts' quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall import (
    ContextRecallOptions,
    Status,
    create_context_recall_scorer,
    load_manifest,
)
from offline_recall.backends import Backend, create_backend
from offline_recall.cli import main
from offline_recall.models import cached_dir

from .conftest import EXAMPLE

pytestmark = pytest.mark.model

CONTEXT = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889."
)
CLAIMS = ["The Eiffel Tower is in Paris.", "It was completed in 1889.", "It is 330 metres tall."]


def test_first_use_converts_the_weights_into_the_cache(
    embedded: Backend, model_cache: Path
) -> None:
    folder = cached_dir(load_manifest())
    assert folder.is_relative_to(model_cache)
    marker = json.loads((folder / "offline-recall.json").read_text())
    assert marker["fingerprint"] == embedded.info.fingerprint
    assert "model.safetensors" in marker["files"]


def test_extraction_returns_a_non_empty_claim_list(embedded: Backend) -> None:
    [claims] = embedded.extract_claims(["Canberra is the capital of Australia."])
    assert isinstance(claims, list) and claims
    assert all(isinstance(c, str) and c.strip() for c in claims)
    assert len(claims) <= load_manifest().decoding.max_claims


def test_verdicts_are_probabilities_and_cache_reuse_changes_nothing(embedded: Backend) -> None:
    batched = embedded.judge([(CONTEXT, c) for c in CLAIMS])
    alone = [embedded.judge([(CONTEXT, c)])[0] for c in CLAIMS]
    assert all(0.0 <= p <= 1.0 for p in batched)
    assert batched == pytest.approx(alone, abs=1e-4)


def test_the_same_input_scored_twice_is_identical(embedded: Backend) -> None:
    scorer = create_context_recall_scorer(embedded, ContextRecallOptions(context=[CONTEXT]))
    run = {"groundTruth": "The Eiffel Tower is in Paris. It was completed in 1889."}
    first, second = scorer.run(run), scorer.run(run)
    assert first.status is Status.OK
    assert first == second
    assert first.score is not None and 0 <= first.score <= 1
    assert len(first.verdicts) == len(first.claims) >= 1
    assert first.model_fingerprint == load_manifest().fingerprint
    assert first.prompt_version == load_manifest().prompt_version == "v2"


def test_budgets_leave_room_for_the_prompt(embedded: Backend) -> None:
    window = load_manifest().context_window
    assert 0 < embedded.info.context_budget < window
    assert 0 < embedded.info.text_budget < window


def test_cli_scores_the_example_end_to_end(embedded: Backend, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["score", str(EXAMPLE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 13))
    scored = [r for r in rows if r["status"] == "ok"]
    assert len(scored) >= 10
    assert all(r["score"] is None for r in rows if r["status"] == "error")
    assert "mean recall" in result.output


def test_a_pinned_folder_runs_the_same_model(embedded: Backend, tmp_path: Path) -> None:
    """The converted cache is a safetensors folder: pinned as a user's own model, it loads
    through the folder path and judges exactly like the embedded manifest."""
    folder = cached_dir(load_manifest())
    out = tmp_path / "pinned.toml"
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", "pinned", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    pinned = create_backend("transformers", load_manifest(out))
    pairs = [(CONTEXT, c) for c in CLAIMS]
    assert pinned.judge(pairs) == pytest.approx(embedded.judge(pairs), abs=1e-6)
