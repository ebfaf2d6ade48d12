"""The real embedded model (SmolLM2-135M-Instruct) on the transformers backend.

The model is converted into a fresh cache and loaded once for the session. The tiny model is
not a trustworthy judge, so these tests check the machinery, not the verdicts' quality.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import (
    ContextRecallOptions,
    Engine,
    create_context_recall_scorer,
    create_engine,
    load_manifest,
)
from offline_recall.cli import main
from offline_recall.engines import JsonOutput, Prompt
from offline_recall.engines.weights import cached_dir
from offline_recall.judging.signals import share_found, words_of
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type, reverses_its_text
from offline_recall.text import pack

from ..conftest import EXAMPLE, RECALL, recall, run_cli

pytestmark = pytest.mark.model

CONTEXT = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889."
)
CLAIMS = ["The Eiffel Tower is in Paris.", "It was completed in 1889.", "It is 330 metres tall."]


def test_first_use_converts_the_weights_into_the_cache(embedded: Engine, model_cache: Path) -> None:
    folder = cached_dir(load_manifest())
    assert folder.is_relative_to(model_cache)
    marker = json.loads((folder / "offline-recall.json").read_text())
    assert marker["fingerprint"] == embedded.identity.fingerprint
    assert "model.safetensors" in marker["files"]


def test_extraction_returns_a_non_empty_claim_list(embedded: Engine) -> None:
    scorer = create_context_recall_scorer(embedded, ContextRecallOptions(context=["x"]))
    [claims] = scorer.extract(["Canberra is the capital of Australia."])
    assert isinstance(claims, list) and claims
    assert all(isinstance(c, str) and c.strip() for c in claims)
    assert len(claims) <= load_manifest().scorers[RECALL].max_items


REVERSED_BY_THE_MODEL = [
    "Water boils at 100 degrees Celsius at sea level.",
    "No, managers are exempt from overtime.",
]
"""Ground truths from which the embedded model writes an invented opposite ("Water does not
boil ...", "No, managers are not exempt ...") beside the claim itself."""


def test_no_extracted_claim_reverses_its_ground_truth(embedded: Engine) -> None:
    scorer = create_context_recall_scorer(embedded, ContextRecallOptions(context=["x"]))
    found = scorer.extract(REVERSED_BY_THE_MODEL)
    for truth, claims in zip(REVERSED_BY_THE_MODEL, found, strict=True):
        assert isinstance(claims, list) and claims, truth
        assert not [c for c in claims if reverses_its_text(c, truth)], (truth, claims)
        assert all(share_found(words_of(truth), c) >= 0.5 for c in claims), (truth, claims)


def test_faithfulness_reads_a_yes_no_answer_as_its_statement(embedded: Engine) -> None:
    from offline_recall import FaithfulnessOptions, create_faithfulness_scorer

    context = ["Managers are exempt from overtime pay under the handbook."]
    scorer = create_faithfulness_scorer(embedded, FaithfulnessOptions(context=context))
    answer = "No, managers are exempt from overtime. Anything else I can help with?"
    result = scorer.run({"input": "Do managers get overtime?", "output": answer})
    assert result.claims, result
    assert not [c for c in result.claims if reverses_its_text(c, "Managers are exempt.")]
    assert not [c for c in result.claims if c.casefold().startswith("no")], result.claims
    assert [n.reason for n in result.not_claims] == ["a question"]


def test_the_model_reads_the_prompt_as_rendered_and_decodes_greedily(embedded: Engine) -> None:
    """The claim list is the model's greedy answer to exactly the rendered prompt: where the
    grammar allows the model's own best token (inside a JSON string), it is the one written.
    A prompt wrapped in a second chat template (a default system turn, the rendered chat as
    one user message) picks "Celsius." here, over the model's own " at sea level"."""
    import torch

    sentence = "Water boils at 100 degrees Celsius at sea level."
    prompt = load_prompts("v4").extract_prompt(sentence)
    [raw] = embedded.generate_json([prompt], JsonOutput(claim_list_type(12), 64))
    assert isinstance(raw, str)
    bare: Any = embedded  # the engine's chat template and model, outside the protocol
    ids = bare.chat.ids(prompt)
    head = bare.chat.tokens('{"claims": ["Water boils at 100 degrees Celsius')
    with torch.inference_mode():
        logits = bare.model(input_ids=torch.tensor([ids + head])).logits[0, -1]
    best = bare.chat.tokens(" at")[0]
    assert int(logits.argmax()) == best
    assert raw.startswith('{"claims": ["Water boils at 100 degrees Celsius at sea level."')


def test_answer_probabilities_do_not_depend_on_the_batch(embedded: Engine) -> None:
    """A prompt's numbers are the same alone, in a batch, or beside other contexts: float
    noise from batching never reaches a recorded probability."""
    prompts = load_prompts("v2")
    asked = [prompts.judge_prompt(CONTEXT, c) for c in CLAIMS]
    other = prompts.judge_prompt("Rome is the capital of Italy.", CLAIMS[0])
    batched = embedded.answer_probabilities(asked, ("yes", "no"))
    alone = [embedded.answer_probabilities([p], ("yes", "no"))[0] for p in asked]
    mixed = embedded.answer_probabilities([other, *reversed(asked)], ("yes", "no"))[1:]
    assert batched == alone == list(reversed(mixed))
    for found in batched:
        assert isinstance(found, tuple) and sum(found) == pytest.approx(1.0)
    # The shared head computed once gives what the whole prompt in one pass gives.
    whole = [Prompt(messages=p.messages) for p in asked]
    in_one_pass = embedded.answer_probabilities(whole, ("yes", "no"))
    assert [f[0] for f in in_one_pass] == pytest.approx([f[0] for f in batched], abs=1e-4)


def test_the_same_input_scored_twice_is_identical(tmp_path: Path) -> None:
    """Two processes score the same rows with nothing shared between them (no memo, no claim
    cache, a run store each): every claim and probability is computed twice, and the result
    files are the same byte for byte."""
    data = tmp_path / "three.jsonl"
    data.write_text("\n".join(EXAMPLE.read_text().splitlines()[:3]) + "\n")
    outs = [tmp_path / f"run{i}.jsonl" for i in (1, 2)]
    for out in outs:
        run_cli("score", str(data), "--no-cache", "--out", str(out))
    first, second = (out.read_bytes() for out in outs)
    assert first == second
    results = [recall(json.loads(line)) for line in first.splitlines()]
    assert [r["status"] for r in results] == ["ok"] * 3
    for result in results:
        assert result["score"] is not None and 0 <= result["score"] <= 1
        assert len(result["verdicts"]) >= 1
        assert result["model_fingerprint"] == load_manifest().fingerprint
        assert result["prompt_version"] == load_manifest().scorers[RECALL].prompt_version


def test_budgets_leave_room_for_the_prompt(embedded: Engine) -> None:
    """A context longer than the window is cut into pieces that each fit the window in the
    judge's prompt beside a claim as long as an answer may be, and that use most of what is
    left (a join between sentences may cost a token): the budget is the window less the
    prompt and the answer, in the model's tokens."""
    window = load_manifest().context_window
    long = " ".join(
        f"Record {i} of the archive was filed in {1900 + i % 100}." for i in range(2500)
    )
    scorer = create_context_recall_scorer(embedded, ContextRecallOptions(context=[long]))
    reserve = scorer.setup.max_new_tokens
    words = ["archive"] * reserve
    while embedded.count_tokens(" ".join(words)) > reserve:
        words.pop()
    claim = " ".join(words)
    assert embedded.count_tokens(claim) >= reserve - 2
    pieces = pack(long, scorer.context_budget, embedded.count_tokens)
    assert len(pieces) > 1
    for piece in pieces:
        assert embedded.prompt_tokens(scorer.prompts.judge_prompt(piece, claim)) <= window
    room = window - embedded.prompt_tokens(scorer.prompts.judge_prompt("", "")) - reserve
    assert max(embedded.count_tokens(piece) for piece in pieces) >= 0.8 * room


def test_cli_scores_the_example_end_to_end(embedded: Engine, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["score", str(EXAMPLE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 13))
    results = [recall(r) for r in rows]
    assert len([r for r in results if r["status"] == "ok"]) >= 10
    assert all(r["score"] is None for r in results if r["status"] == "error")
    assert "mean recall" in result.output


def test_a_pinned_folder_runs_the_same_model(embedded: Engine, tmp_path: Path) -> None:
    """The converted cache is a safetensors folder: pinned as a user's own model, it loads
    through the folder path and judges exactly like the embedded manifest when it reads the
    same answer tokens. Pinning reads P(yes) over every spelling of yes and no; the embedded
    manifest pins none, so it reads the one token of each word, as it always has."""
    folder = cached_dir(load_manifest())
    out = tmp_path / "pinned.toml"
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", "pinned", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    manifest = load_manifest(out)
    assert manifest.answers is not None and load_manifest().answers is None
    single = embedded.count_tokens
    assert single("yes") == single("no") == 1
    pinned = create_engine("transformers", manifest.model_copy(update={"answers": None}))
    asked = [load_prompts("v2").judge_prompt(CONTEXT, c) for c in CLAIMS]
    assert pinned.answer_probabilities(asked, ("yes", "no")) == embedded.answer_probabilities(
        asked, ("yes", "no")
    )
    summed = create_engine("transformers", manifest).answer_probabilities(asked, ("yes", "no"))
    assert all(isinstance(p, tuple) and 0.0 <= p[0] <= 1.0 for p in summed)


def test_the_engine_tells_progress_prompt_by_prompt(embedded: Engine) -> None:
    """Inside a window the real engine reports each prompt as it finishes, so a long window
    still moves on the progress bar."""
    prompts = load_prompts("v2")
    told: list[int] = []
    texts = ["Canberra is the capital of Australia.", "Water boils at 100 degrees Celsius."]
    embedded.generate_json(
        [prompts.extract_prompt(t) for t in texts],
        JsonOutput(claim_list_type(12), 64),
        done=told.append,
    )
    assert told == [1, 1]
    told.clear()
    asked = [prompts.judge_prompt(c, CLAIMS[0]) for c in (CONTEXT, "Rome is in Italy.")]
    embedded.answer_probabilities(asked, ("yes", "no"), done=told.append)
    assert sum(told) == 2 and len(told) == 2  # two contexts: each head reported when done
