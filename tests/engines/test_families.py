"""Pinned models of every supported family, and verifiers, on tiny random-initialised weights.

The models are built once per session (scripts/build_tiny_models.py: seconds) with each
family's real chat template. These tests prove the plumbing (pin, hashes, rendering, answer
tokens, constrained JSON, a full `score` run), never the quality: the weights are noise.

The rendered prompts are snapshots in tests/snapshots/families/; after an intended change,
rewrite them with
`OFFLINE_RECALL_UPDATE_SNAPSHOTS=1 pytest tests/engines/test_families.py -k snapshot`.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import ConfigurationError, Engine, create_engine, load_manifest
from offline_recall.cli import main
from offline_recall.engines import Failed, JsonOutput
from offline_recall.engines.chat import ChatTemplate
from offline_recall.engines.manifests import ModelManifest
from offline_recall.engines.weights import WeightsState, weights_state
from offline_recall.runs.resolve import resolve_spec
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type, parse_claims

from ..conftest import BUILDER, EXAMPLE, recall

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "tests" / "snapshots" / "families"
JUDGE_PROMPT = ROOT / "tests" / "fixtures" / "verifier.judge.toml"
CONTEXT = "Canberra is the capital city of Australia. It was chosen as a compromise."
CLAIM = "Canberra is the capital of Australia."


FAMILIES: list[str] = list(BUILDER.FAMILIES)
CLASSIFIER: str = BUILDER.CLASSIFIER
CLASSIFIERS: list[str] = [CLASSIFIER, BUILDER.DEBERTA]
ON_VLLM = [f for f in FAMILIES if f != "smollm2"]
"""Each engine start costs about 20 s: SmolLM2's architecture is Llama's, and the real SmolLM2
runs on vLLM in test_vllm_backend.py."""
FOLDED = {"gemma2"}
"""Families whose template refuses a system turn (Gemma 3's folds it into the user turn itself)."""


def pin(folder: Path, out: Path, *extra: str) -> ModelManifest:
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", folder.name, "--out", str(out), *extra]
    )
    assert result.exit_code == 0, result.output
    return load_manifest(out)


@pytest.fixture(scope="session")
def pinned(tiny: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A manifest per tiny model, written by `models pin`."""
    folder = tmp_path_factory.mktemp("manifests")
    paths = {}
    for name, model in tiny.items():
        paths[name] = folder / f"{name}.toml"
        pin(model, paths[name])
    return paths


def spelled(tokenizer: Any, prompt: str, spelling: str) -> int:
    """The one token `spelling` is after `prompt`."""
    head = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    whole = tokenizer(prompt + spelling, add_special_tokens=False)["input_ids"]
    assert whole[: len(head)] == head and len(whole) == len(head) + 1
    return int(whole[-1])


# Pinning: what each family needs, read from its folder ---------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_pinning_records_what_the_family_needs(
    family: str, tiny: dict[str, Path], pinned: dict[str, Path]
) -> None:
    from transformers import AutoTokenizer

    manifest = load_manifest(pinned[family])
    assert weights_state(manifest) is WeightsState.VERIFIED
    assert manifest.family == BUILDER.FAMILIES[family].model_type
    assert manifest.context_window == BUILDER.CONTEXT
    assert manifest.system_turn == ("fold" if family in FOLDED else "native")
    assert manifest.template_options.get("enable_thinking") is (
        False if family == "qwen3" else None
    )
    if family == "llama3":  # its template writes today's date unless given one
        assert manifest.template_options["date_string"] == "26 Jul 2024"
    assert manifest.answers is not None
    tokenizer = AutoTokenizer.from_pretrained(tiny[family])
    chat = ChatTemplate(tokenizer, manifest)
    prompt = chat.render(load_prompts("v2").judge_prompt(CONTEXT, CLAIM))
    for word, tokens in (("yes", manifest.answers.yes), ("no", manifest.answers.no)):
        assert {t.text for t in tokens} <= {word, f" {word}", word.title(), f" {word.title()}"}
        for token in tokens:
            assert spelled(tokenizer, prompt, token.text) == token.id
        assert chat.answer_ids(word) == tuple(t.id for t in tokens)


def test_a_changed_file_of_a_pinned_family_is_refused(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(tiny["qwen3"], folder)
    manifest = pin(folder, tmp_path / "copy.toml")
    (folder / "chat_template.jinja").write_text("{{ messages }}")
    assert weights_state(manifest) is WeightsState.MISMATCH


def test_the_fingerprint_covers_how_prompts_are_rendered(pinned: dict[str, Path]) -> None:
    manifest = load_manifest(pinned["qwen3"])
    others = [
        manifest.model_copy(update={"template_options": {}}),
        manifest.model_copy(update={"system_turn": "fold"}),
        manifest.model_copy(update={"answers": None}),
        manifest.model_copy(update={"answer_prefix": "<think>\n\n</think>\n\n"}),
    ]
    assert len({manifest.fingerprint, *(m.fingerprint for m in others)}) == 1 + len(others)


def test_a_tokenizer_without_a_one_token_yes_is_refused(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    folder = tmp_path / "chars"
    shutil.copytree(tiny["qwen2"], folder)
    chars = sorted(set("".join(BUILDER.corpus())) | set(pre_tokenizers.ByteLevel.alphabet()))
    tok = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(chars)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.add_special_tokens(["<|im_start|>", "<|im_end|>", "<|endoftext|>"])
    template = (folder / "chat_template.jinja").read_text()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>")
    tokenizer.chat_template = template
    tokenizer.save_pretrained(folder)
    result = CliRunner().invoke(main, ["models", "pin", str(folder), "--name", "chars"])
    assert result.exit_code == 1
    assert "no single token for 'yes'" in result.output


def test_the_context_window_can_be_capped(tiny: dict[str, Path], tmp_path: Path) -> None:
    manifest = pin(tiny["phi3"], tmp_path / "capped.toml", "--max-context", "512")
    assert manifest.context_window == 512


def test_models_list_shows_family_answers_and_context(pinned: dict[str, Path]) -> None:
    result = CliRunner().invoke(main, ["models", "list", str(pinned["gemma2"])])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "gemma2" in line)
    manifest = load_manifest(pinned["gemma2"])
    assert manifest.answers is not None
    assert "system folded into user" in result.output
    assert str(BUILDER.CONTEXT) in row
    assert f"'yes'={manifest.answers.yes[0].id}" in result.output


# Rendering: a snapshot of each family's prompts -----------------------------------------


def rendered(tokenizer: Any, manifest: ModelManifest) -> str:
    """Both prompts of prompt set v2 as the family renders them, and the answer tokens."""
    chat = ChatTemplate(tokenizer, manifest)
    prompts = load_prompts("v2")
    assert manifest.answers is not None
    answers = {
        "yes": [t.model_dump() for t in manifest.answers.yes],
        "no": [t.model_dump() for t in manifest.answers.no],
    }
    return (
        "=== judge ===\n"
        + chat.render(prompts.judge_prompt(CONTEXT, CLAIM))
        + "\n=== extract ===\n"
        + chat.render(prompts.extract_prompt(CONTEXT))
        + "\n=== answers ===\n"
        + json.dumps(answers, ensure_ascii=False)
        + "\n"
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_rendered_prompts_snapshot(
    family: str, tiny: dict[str, Path], pinned: dict[str, Path]
) -> None:
    from transformers import AutoTokenizer

    text = rendered(AutoTokenizer.from_pretrained(tiny[family]), load_manifest(pinned[family]))
    snapshot = SNAPSHOTS / f"{family}.txt"
    if os.environ.get("OFFLINE_RECALL_UPDATE_SNAPSHOTS"):
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.is_file(), f"no snapshot {snapshot}; see this module's docstring"
    assert text == snapshot.read_text(encoding="utf-8")
    if family in FOLDED:  # the instructions open the user turn
        assert "<start_of_turn>user\nYou check whether a claim" in text


# The engines on every family --------------------------------------------------------------


@pytest.fixture(scope="module")
def engines(pinned: dict[str, Path]) -> dict[str, Engine]:
    return {f: create_engine("transformers", load_manifest(pinned[f])) for f in FAMILIES}


@pytest.mark.model
@pytest.mark.parametrize("family", FAMILIES)
def test_p_yes_sums_every_spelling(family: str, engines: dict[str, Engine]) -> None:
    """P(yes) is the mass of all yes spellings over that of all yes and no spellings, read
    off the model's own next-token distribution."""
    import torch

    engine: Any = engines[family]
    prompt = load_prompts("v2").judge_prompt(CONTEXT, CLAIM)
    (found,) = engine.answer_probabilities([prompt], ("yes", "no"))
    assert isinstance(found, tuple) and len(found) == 2
    assert all(0.0 <= p <= 1.0 for p in found) and math.isclose(sum(found), 1.0, rel_tol=1e-6)
    with torch.inference_mode():
        ids = torch.tensor([engine.chat.ids(prompt)])
        probs = torch.softmax(engine.model(input_ids=ids).logits[0, -1].float(), dim=-1)
    yes = float(sum(probs[i] for i in engine.chat.answer_ids("yes")))
    no = float(sum(probs[i] for i in engine.chat.answer_ids("no")))
    assert len(engine.chat.answer_ids("yes")) > 1
    assert found[0] == pytest.approx(yes / (yes + no), abs=1e-5)


def _finished_claims(raw: str) -> list[str]:
    """The non-blank claims of the longest head of a cut-off claim list that closes into
    valid JSON."""
    for end in range(len(raw), 0, -1):
        try:
            found = json.loads(raw[:end] + "]}")
        except json.JSONDecodeError:
            continue
        return [c for c in found["claims"] if c.strip()]
    return []


OFF_GRAMMAR = {"phi3"}
"""Families whose constrained output on transformers leaves the grammar: tiny Phi-3 writes
`{"claims  ["]"]` (the `":` and the claim's text are lost), a known defect, not yet fixed."""


@pytest.mark.model
@pytest.mark.parametrize(
    "family",
    [
        pytest.param(f, marks=pytest.mark.xfail(strict=True, reason="output leaves the grammar"))
        if f in OFF_GRAMMAR
        else f
        for f in FAMILIES
    ],
)
def test_constrained_json_gives_a_claim_list(family: str, engines: dict[str, Engine]) -> None:
    """The output stays inside the claim list's grammar: a whole `{"claims": [...]}` read back
    as exactly its claims, or, where random weights ran into the token bound inside a claim,
    a prefix of such a document whose finished claims stand (none finished: an error naming
    the bound), never a list it is not."""
    import regex
    from outlines_core.json_schema import build_regex_from_schema

    claims = claim_list_type(3)
    grammar = regex.compile(build_regex_from_schema(json.dumps(claims.model_json_schema())))
    prompt = load_prompts("v2").extract_prompt("Canberra is the capital of Australia.")
    (raw,) = engines[family].generate_json([prompt], JsonOutput(claims, 48))
    assert isinstance(raw, str)
    parsed = parse_claims(raw, claims, 48)
    if grammar.fullmatch(raw):
        assert parsed == json.loads(raw)["claims"]
        return
    assert grammar.fullmatch(raw, partial=True), f"not a prefix of the grammar: {raw!r}"
    finished = _finished_claims(raw)
    if finished:
        assert parsed == finished
    else:
        assert isinstance(parsed, Failed) and "in 48 tokens" in parsed.message


def _two_rows(tmp_path: Path) -> Path:
    data = tmp_path / "two.jsonl"
    data.write_text("\n".join(EXAMPLE.read_text().splitlines()[:2]) + "\n")
    return data


def _scored(out: Path) -> list[dict[str, Any]]:
    rows = [recall(json.loads(line)) for line in out.read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        assert row["status"] in {"ok", "no_claims"}, row
        for verdict in row["verdicts"]:
            assert 0.0 <= verdict["probability"] <= 1.0
    return rows


@pytest.mark.model
@pytest.mark.parametrize("family", FAMILIES)
def test_score_runs_on_transformers(family: str, pinned: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    args = ["score", str(_two_rows(tmp_path)), "--model", str(pinned[family]), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--no-cache"])
    assert result.exit_code == 0, result.output
    rows = _scored(out)
    assert {r["model_fingerprint"] for r in rows} == {load_manifest(pinned[family]).fingerprint}


# Fine-tuned verifiers ---------------------------------------------------------------------


@pytest.mark.parametrize("classifier", CLASSIFIERS)
def test_a_classifier_is_pinned_with_its_label(classifier: str, pinned: dict[str, Path]) -> None:
    manifest = load_manifest(pinned[classifier])
    assert manifest.classifier is not None and not manifest.can_generate
    assert manifest.classifier.supported_label == "entailment"
    assert manifest.classifier.pair_order == "evidence-first"
    assert manifest.classifier.max_length == manifest.context_window == 512


@pytest.mark.model
@pytest.mark.parametrize("classifier", CLASSIFIERS)
def test_a_classifier_judges_while_a_chat_model_extracts(
    classifier: str, pinned: dict[str, Path], tmp_path: Path
) -> None:
    spec = resolve_spec(str(pinned["qwen2"]), judge_model=str(pinned[classifier]))
    assert spec.judge is not None
    alone = resolve_spec(str(pinned["qwen2"]))
    assert "judge" in spec.identity() and "judge" not in alone.identity()
    assert spec.digest != alone.digest
    out = tmp_path / "results.jsonl"
    args = ["score", str(_two_rows(tmp_path)), "--model", str(pinned["qwen2"]), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--judge-model", str(pinned[classifier])])
    assert result.exit_code == 0, result.output
    rows = _scored(out)
    chat, judge = (load_manifest(pinned[m]).fingerprint for m in ("qwen2", classifier))
    assert {r["model_fingerprint"] for r in rows} == {f"{chat}+{judge}"}


@pytest.mark.model
@pytest.mark.parametrize("classifier", CLASSIFIERS)
def test_a_classifier_reads_the_pair_not_the_chat(classifier: str, pinned: dict[str, Path]) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    manifest = load_manifest(pinned[classifier])
    engine = create_engine("transformers", manifest)
    prompts = load_prompts("v2")
    (found,) = engine.answer_probabilities([prompts.judge_prompt(CONTEXT, CLAIM)], ("yes", "no"))
    (wrote,) = engine.generate_json(
        [prompts.extract_prompt(CLAIM)], JsonOutput(claim_list_type(3), 8)
    )
    assert isinstance(wrote, Failed) and "writes no text" in wrote.message
    folder = Path(manifest.source.path or "")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.inference_mode():
        logits = model(**tokenizer(CONTEXT, CLAIM, return_tensors="pt")).logits[0]
    assert isinstance(found, tuple)
    assert found[0] == pytest.approx(float(torch.softmax(logits, -1)[0]), abs=1e-6)


def test_a_classifier_cannot_extract_claims(pinned: dict[str, Path]) -> None:
    with pytest.raises(ConfigurationError, match="classifier verifier and writes no claims"):
        resolve_spec(str(pinned[CLASSIFIER]))


@pytest.mark.model
def test_a_generative_verifier_is_a_prompt_file_and_a_manifest(
    tiny: dict[str, Path], pinned: dict[str, Path], tmp_path: Path
) -> None:
    verifier = pin(tiny["qwen2"], tmp_path / "verifier.toml", "--judge-prompt", str(JUDGE_PROMPT))
    assert verifier.judge_prompt == str(JUDGE_PROMPT)
    assert verifier.fingerprint != load_manifest(pinned["qwen2"]).fingerprint
    out = tmp_path / "results.jsonl"
    args = ["score", str(_two_rows(tmp_path)), "--model", str(pinned["llama3"]), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--judge-model", str(tmp_path / "verifier.toml")])
    assert result.exit_code == 0, result.output
    _scored(out)
    from offline_recall import ContextRecallOptions, create_context_recall_scorer

    scorer = create_context_recall_scorer(
        str(pinned["llama3"]), ContextRecallOptions(context=[CONTEXT]), judge=verifier
    )
    judged = scorer.judge_engine
    assert isinstance(judged.identity.fingerprint, str)
    text = judged.chat.render(scorer.prompts.judge_prompt(CONTEXT, CLAIM))  # type: ignore[attr-defined]
    assert "Document: Canberra" in text and "Answer Yes or No." in text
    assert "<|im_start|>system\nYou are Qwen" in text  # no system turn of ours


# vLLM: every family in one process -----------------------------------------------------


@pytest.mark.model
@pytest.mark.vllm
def test_every_family_scores_on_vllm(
    pinned: dict[str, Path], engines: dict[str, Engine], model_cache: Path
) -> None:
    """Each family on vLLM's engine (float32, to compare with transformers): the same P(yes)
    over the same spellings, a constrained claim list, and two example rows scored; and the
    classifier verifier on vLLM's pooling runner, judging two rows."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.vllm_families",
            *(str(pinned[f]) for f in [*ON_VLLM, CLASSIFIER]),
        ],
        cwd=ROOT,
        env={**os.environ, "OFFLINE_RECALL_CACHE": str(model_cache)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [Path(f["manifest"]).stem for f in found] == [*ON_VLLM, CLASSIFIER]
    classifier = found.pop()
    on_transformers = create_engine("transformers", load_manifest(pinned[CLASSIFIER]))
    (expected,) = on_transformers.answer_probabilities(
        [load_prompts("v2").judge_prompt(CONTEXT, CLAIM)], ("yes", "no")
    )
    assert isinstance(expected, tuple)
    assert classifier["p_yes"] == pytest.approx(list(expected), abs=0.02)  # vLLM: bfloat16
    assert [r["status"] for r in classifier["results"]] == ["ok", "ok"]
    print(f"{CLASSIFIER}: vLLM start {classifier['start_s']} s, score {classifier['score_s']} s")
    prompt = load_prompts("v2").judge_prompt(CONTEXT, CLAIM)
    for family, on_vllm in zip(ON_VLLM, found, strict=True):
        assert on_vllm["fingerprint"] == load_manifest(pinned[family]).fingerprint
        (on_transformers,) = engines[family].answer_probabilities([prompt], ("yes", "no"))
        assert isinstance(on_transformers, tuple)
        assert on_vllm["p_yes"] == pytest.approx(list(on_transformers), abs=1e-3), family
        assert on_vllm["json"].startswith("{") and on_vllm["claims_parsed"], family
        assert len(on_vllm["results"]) == 2
        for result in on_vllm["results"]:
            assert result["status"] in {"ok", "no_claims"}, (family, result)
            assert all(0.0 <= v["probability"] <= 1.0 for v in result["verdicts"])
        print(f"{family}: vLLM start {on_vllm['start_s']} s, score {on_vllm['score_s']} s")


@pytest.mark.model
def test_a_classifier_is_calibrated_like_any_judge(pinned: dict[str, Path], tmp_path: Path) -> None:
    """`calibrate` fits the verifier's profile on labelled rows; a later run that names it as
    the judge model finds the profile by the verifier's fingerprint."""
    from ..judging.test_calibration import TINY

    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in TINY))
    out = tmp_path / "profile.json"
    command = ["calibrate", "--data", str(data), "--model", str(pinned[CLASSIFIER])]
    result = CliRunner().invoke(main, [*command, "--folds", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    profile = json.loads(out.read_text())
    assert profile["model_fingerprint"] == load_manifest(pinned[CLASSIFIER]).fingerprint


def test_a_template_that_drops_the_system_turn_is_folded(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    """Some templates (early Phi-3) render no system turn at all, silently: pinning sees the
    instructions missing and folds them into the first user turn."""
    folder = tmp_path / "drops"
    shutil.copytree(tiny["phi3"], folder)
    template = (folder / "chat_template.jinja").read_text()
    (folder / "chat_template.jinja").write_text(
        template.replace("message['role'] == 'system' and message['content']", "false")
    )
    manifest = pin(folder, tmp_path / "drops.toml")
    assert manifest.system_turn == "fold"
