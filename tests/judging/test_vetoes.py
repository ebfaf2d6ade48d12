"""A claim whose number its chunk contradicts or never states is decided unsupported by the
rule's vetoes, without asking the model: the reading judge says yes to a claim whose number
is off, and a number the context lacks leaves the claim at most partly supported."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall import ContextRecallOptions, create_context_recall_scorer
from offline_recall.cli.summary import profile_line
from offline_recall.engines.fake import FakeEngine
from offline_recall.engines.manifests import Veto, load_manifest
from offline_recall.judging.judge import Judge, PairVerdict, Question
from offline_recall.judging.profile import (
    JudgeProfile,
    ProfileOrigin,
    find_profile,
    threshold_profile,
)
from offline_recall.judging.signals import lexical_signals
from offline_recall.paths import CACHE_ENV
from offline_recall.runs.spec import ScorerSpec
from offline_recall.scorer.results import ScorerSetup

RECALL = "context-recall-scorer"
PRECISION = "context-precision-scorer"
VETOES: tuple[Veto, ...] = ("contradicted_quantity", "missing_number")
CHUNK = "The Eiffel Tower was completed in 1889. It stands in Paris and is 330 metres tall."
HANGUL = "그램스타 15는 한 번 충전하면 최대 열두 시간 사용할 수 있다."


def _question() -> Question[str]:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=["x"]))
    return scorer.judge.question


def _vetoed(context: str, claim: str) -> bool:
    return threshold_profile(0.5, vetoes=VETOES).vetoed(lexical_signals(context, claim))


@pytest.mark.parametrize(
    ("context", "claim"),
    [
        (CHUNK, "The Eiffel Tower was completed in 1899."),  # another year
        (CHUNK, "It is 300 metres tall."),  # another height
        (CHUNK, "The Eiffel Tower has 1665 steps."),  # a number the chunk never states
        (HANGUL, "그램스타 15는 한 번 충전으로 최대 열 시간 쓸 수 있다."),  # 10 hours, not 12
    ],
)
def test_a_claim_whose_number_is_contradicted_or_missing_is_vetoed(
    context: str, claim: str
) -> None:
    assert _vetoed(context, claim)


@pytest.mark.parametrize(
    ("context", "claim"),
    [
        (CHUNK, "The tower in Paris was finished in 1889."),
        (CHUNK, "It stands in Paris."),  # no number: nothing to veto
        (HANGUL, "그램스타 15의 배터리는 최대 12시간 지속된다."),  # 열두 시간 is 12 hours
        ("The battery lasts up to twelve hours.", "The battery lasts 12 hours."),
    ],
)
def test_a_claim_whose_numbers_the_chunk_states_in_any_form_is_not_vetoed(
    context: str, claim: str
) -> None:
    assert not _vetoed(context, claim)


def test_a_vetoed_pair_is_unsupported_without_asking_the_model() -> None:
    engine = FakeEngine(p_yes={})
    profile = threshold_profile(0.5, vetoes=VETOES)
    off = "The Eiffel Tower was completed in 1899."
    said = "The tower in Paris was finished in 1889."
    found = Judge(engine, _question(), profile).assess([(CHUNK, off), (CHUNK, said)])
    assert found[0] == PairVerdict(0.0, None)
    assert isinstance(found[1], PairVerdict) and found[1].model_p_yes is not None
    assert [len(call) for call in engine.answer_calls] == [1]
    assert said in engine.answer_calls[0][0]


def test_without_vetoes_the_model_decides_a_contradicted_number() -> None:
    engine = FakeEngine()
    found = Judge(engine, _question(), threshold_profile(0.5)).assess(
        [(CHUNK, "The Eiffel Tower was completed in 1899.")]
    )
    assert isinstance(found[0], PairVerdict) and found[0].model_p_yes is not None


def test_vetoes_are_part_of_the_rule_and_absent_when_unset() -> None:
    plain = threshold_profile(0.5)
    vetoing = threshold_profile(0.5, vetoes=VETOES)
    assert plain.digest != vetoing.digest
    assert "vetoes" not in plain.model_dump_json(exclude=plain._unset())
    assert vetoing.uses_lexical and not plain.uses_lexical
    with pytest.raises(ValueError, match="vetoes"):
        threshold_profile(0.5, vetoes=("missing_word",))  # type: ignore[arg-type]


def test_a_korean_rule_has_no_vetoes_of_its_own() -> None:
    plain = threshold_profile(0.5, fingerprint="m@1", prompt_version="v4")
    data = plain.model_dump(mode="json")
    data["korean"] = {**plain.model_dump(mode="json"), "vetoes": ["missing_number"]}
    with pytest.raises(ValueError, match="the Korean rule has none"):
        JudgeProfile.model_validate(data)


def test_the_manifests_vetoes_reach_the_plain_rule_of_claims_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    fingerprint = "tiny@0123456789abcdef"
    recall = find_profile(RECALL, fingerprint, "v4", 0.5, vetoes=VETOES).profile
    precision = find_profile(PRECISION, fingerprint, "v2", 0.5, vetoes=VETOES).profile
    assert (recall.vetoes, precision.vetoes) == (VETOES, ())


@pytest.mark.parametrize("model", ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"])
def test_the_reading_judges_veto_contradicted_and_missing_numbers(model: str) -> None:
    assert load_manifest(model).vetoes == VETOES


def test_scores_first_lines_say_what_is_vetoed() -> None:
    setup = ScorerSetup(prompt_version="v4", judge_profile=threshold_profile(0.5, vetoes=VETOES))
    spec = ScorerSpec(id=RECALL, setup=setup, profile_origin=ProfileOrigin.THRESHOLD)
    line = profile_line(spec)
    assert (
        "a claim with a quantity its chunk contradicts or a number its chunk never states: "
        "unsupported without asking the model" in line
    )
