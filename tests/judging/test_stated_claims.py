"""A claim its chunk states word for word is decided without the model where the profile says
so: the rule reads the pair, the model is asked about the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall import ContextRecallOptions, create_context_recall_scorer
from offline_recall.cli.summary import profile_line
from offline_recall.engines.fake import FakeEngine
from offline_recall.judging.judge import Judge, PairVerdict, Question
from offline_recall.judging.profile import (
    JudgeProfile,
    ProfileOrigin,
    find_profile,
    threshold_profile,
)
from offline_recall.judging.signals import lexical_signals, stated
from offline_recall.paths import CACHE_ENV
from offline_recall.runs.spec import ScorerSpec
from offline_recall.scorer.results import ScorerSetup

RECALL = "context-recall-scorer"
PRECISION = "context-precision-scorer"
CHUNK = "The Eiffel Tower was completed in 1889. It stands in Paris and is 330 metres tall."


def _stated(context: str, claim: str) -> bool:
    return stated(claim, lexical_signals(context, claim))


@pytest.mark.parametrize(
    "claim",
    ["The Eiffel Tower was completed in 1889.", "It is 330 metres tall."],
)
def test_a_claim_the_chunk_says_word_for_word_is_stated(claim: str) -> None:
    assert _stated(CHUNK, claim)


@pytest.mark.parametrize(
    ("context", "claim"),
    [
        (CHUNK, "The Eiffel Tower was completed in 1899."),  # a number it does not say
        (CHUNK, "The Eiffel Tower was not completed in 1889."),  # a negation
        (CHUNK, "The Eiffel Tower stands in Paris and was completed in 1889."),  # two sentences
        (CHUNK, "The Eiffel Tower stands in Rome."),  # a word it lacks
        ("Bananas are rich in potassium.", "The Louvre is in Paris."),  # unrelated
        ("에펠탑은 1889년에 완공되었다.", "에펠탑은 1889년에 완공되었다."),  # Korean: always asked
    ],
)
def test_a_claim_the_chunk_does_not_say_as_it_is_is_not_stated(context: str, claim: str) -> None:
    assert not _stated(context, claim)


def _question() -> Question[str]:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=["x"]))
    return scorer.judge.question  # type: ignore[attr-defined, no-any-return]


def test_the_model_is_asked_only_about_pairs_the_chunk_does_not_state() -> None:
    said = "The Eiffel Tower was completed in 1889."
    other = "The Eiffel Tower was completed in 1899."
    engine = FakeEngine(p_yes={})
    profile = threshold_profile(0.5, stated_p_yes=0.95)
    done: list[int] = []
    found = Judge(engine, _question(), profile).assess(
        [(CHUNK, said), (CHUNK, other)], done=lambda n: done.append(n)
    )
    assert found[0] == PairVerdict(0.95, None)  # decided by the rule, the model not asked
    assert isinstance(found[1], PairVerdict) and found[1].model_p_yes is not None
    assert found[1].probability == found[1].model_p_yes
    assert [len(call) for call in engine.answer_calls] == [1]
    assert other in engine.answer_calls[0][0] and sum(done) == 2


def test_the_pairs_decided_without_the_model_are_counted_after_its_answers() -> None:
    """A progress measures the model's pace while it works: two pairs that took no time
    counted first would make one pair's wait look like a third of the work."""
    pairs = [
        (CHUNK, "The Eiffel Tower was completed in 1889."),
        (CHUNK, "It is 330 metres tall."),
        (CHUNK, "The Eiffel Tower was completed in 1899."),
    ]
    done: list[int] = []
    Judge(FakeEngine(), _question(), threshold_profile(0.5, stated_p_yes=0.95)).assess(
        pairs, done=done.append
    )
    assert done == [1, 2]  # the model's one answer, then the two stated pairs


def test_without_stated_p_yes_every_pair_is_asked() -> None:
    engine = FakeEngine()
    pairs = [(CHUNK, "The Eiffel Tower was completed in 1889."), (CHUNK, "It is 330 metres tall.")]
    found = Judge(engine, _question(), threshold_profile(0.5)).assess(pairs)
    assert all(isinstance(f, PairVerdict) and f.model_p_yes is not None for f in found)
    assert [len(call) for call in engine.answer_calls] == [2]


def test_a_rule_without_the_model_never_asks_it() -> None:
    engine = FakeEngine()
    lexical = JudgeProfile(
        model_fingerprint="m@1",
        prompt_version="v1",
        signals=("overlap",),
        means=(0.0,),
        scales=(1.0,),
        weights=(4.0,),
        bias=-2.0,
        threshold=0.5,
        stated_p_yes=0.9,
    )
    found = Judge(engine, _question(), lexical).assess([(CHUNK, "It stands in Paris.")])
    assert isinstance(found[0], PairVerdict) and found[0].model_p_yes is None
    assert engine.answer_calls == []


def test_the_stated_p_yes_is_part_of_the_rule_and_absent_when_unset() -> None:
    plain = threshold_profile(0.5)
    with_stated = threshold_profile(0.5, stated_p_yes=0.95)
    assert plain.digest != with_stated.digest
    assert "stated_p_yes" not in plain.model_dump_json(exclude=plain._unset())
    with pytest.raises(ValueError, match="less than 1"):
        threshold_profile(0.5, stated_p_yes=1.0)


def test_a_korean_rule_never_skips_the_model() -> None:
    plain = threshold_profile(0.5, fingerprint="m@1", prompt_version="v4")
    data = plain.model_dump(mode="json")
    data["korean"] = {**plain.model_dump(mode="json"), "stated_p_yes": 0.9}
    with pytest.raises(ValueError, match="its rule has no stated_p_yes"):
        JudgeProfile.model_validate(data)


def test_the_manifests_stated_p_yes_reaches_the_plain_rule_of_claims_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    recall = find_profile(RECALL, "tiny@0123456789abcdef", "v4", 0.5, 0.9).profile
    precision = find_profile(PRECISION, "tiny@0123456789abcdef", "v2", 0.5, 0.9).profile
    assert (recall.stated_p_yes, precision.stated_p_yes) == (0.9, None)


def test_scores_first_lines_say_a_stated_claim_is_decided_without_the_model() -> None:
    def line(profile: JudgeProfile) -> str:
        setup = ScorerSetup(prompt_version="v4", judge_profile=profile)
        spec = ScorerSpec(id=RECALL, setup=setup, profile_origin=ProfileOrigin.THRESHOLD)
        return profile_line(spec)

    assert "word for word: 0.92 without asking the model" in line(
        threshold_profile(0.5, stated_p_yes=0.92)
    )
    assert "word for word" not in line(threshold_profile(0.5))
