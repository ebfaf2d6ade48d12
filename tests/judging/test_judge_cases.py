"""Behaviour cases by kind, on the scorer's judge under the embedded model's shipped rule.

The shipped rule reads the text alone, so the cases run where it runs, with no model loaded; a
profile that asks the model is run end to end on the embedded model at the end.

Each case is a context, a claim and whether the context supports it. The kinds the judge's
signals aim at (polarity, quantities, opposites, Korean) hold both supported and unsupported
claims, so a rule that always says one thing cannot pass, and must be right at least 90% of the
time; the others (swapped entity, paraphrase, unrelated context) are reported, not asserted: a
lexical rule cannot read meaning, and these shares say how far it gets.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from offline_recall import (
    ContextRecallOptions,
    Engine,
    FakeEngine,
    Status,
    create_context_recall_scorer,
)
from offline_recall.engines import Failed, Prompt
from offline_recall.engines.manifests import DEFAULT_MODEL, load_manifest
from offline_recall.judging.profile import RECALL, JudgeProfile, ProfileOrigin, find_profile
from offline_recall.judging.signals import lexical_signals
from offline_recall.paths import CACHE_ENV


class Case(NamedTuple):
    kind: str
    context: str
    claim: str
    supported: bool


ASPIRIN = (
    "Aspirin is a common pain reliever. Aspirin is not safe for children with viral infections "
    "such as the flu, because it can cause Reye's syndrome. Adults take it to lower fever."
)
CURIE = (
    "Marie Curie was a physicist and chemist. Marie Curie won two Nobel Prizes, in physics and "
    "in chemistry. She was born in Warsaw and worked in Paris."
)
EINSTEIN = (
    "Albert Einstein developed the theory of relativity. Einstein won only one Nobel Prize, in "
    "physics, for the photoelectric effect. He never won a second one."
)
WATER = (
    "At sea level, water boils at 100 °C (212 °F). Salt raises the boiling point slightly. "
    "Water freezes at 0 °C."
)
EIFFEL = (
    "The Eiffel Tower stands on the Champ de Mars in Paris. Construction finished in 1889, in "
    "time for the World's Fair. The tower is 330 metres tall and was designed by Gustave "
    "Eiffel's company."
)
BERLIN = (
    "The Berlin Wall divided the city for almost three decades. On 9 November 1989 the wall came "
    "down, and Germany was reunified in 1990."
)
MARKET = (
    "The company's shares rose 12% on Tuesday after strong results. Revenue increased to 4.2 "
    "billion dollars. The chief executive said the firm would win new contracts in Asia."
)
RIVER = (
    "The river is 12 kilometres long and flows into the lake. Its water level fell during the "
    "dry summer. The bridge over it opened at 3 pm on 5 May 2001."
)
TRIAL = (
    "The drug did not reduce the risk of heart attacks in the trial. It failed to lower blood "
    "pressure. Patients who took it had no serious side effects."
)
TEAM = (
    "The team won the final against Brazil. Their coach, Ana Silva, joined the club in 2015. "
    "The stadium holds twelve thousand people."
)

HANDBOOK = (
    "신입 직원은 처음 3개월 동안 수습 기간을 거친다. 수습 기간에는 연차가 없다. 정규직 직원은 "
    "매년 20일의 연차 휴가를 받는다. 팀장은 세 명이다. 김민수 팀장이 인사 업무를 맡는다."
)
ENDINGS = "Korean particles and endings"
KOREAN: tuple[Case, ...] = (
    # Korean: the same words with other particles and endings, negation, numbers and counters.
    Case(ENDINGS, HANDBOOK, "3개월간 수습 기간을 거친다.", True),
    Case(ENDINGS, HANDBOOK, "신입 직원이 처음 3개월 동안 수습 기간을 거칩니다.", True),
    Case(ENDINGS, HANDBOOK, "정규직 직원이 매년 20일의 연차 휴가를 받아요.", True),
    Case(ENDINGS, HANDBOOK, "팀장이 세 명입니다.", True),
    Case(ENDINGS, HANDBOOK, "김민수 팀장은 인사 업무를 맡았다.", True),
    Case(ENDINGS, HANDBOOK, "이영희 팀장이 인사 업무를 맡는다.", False),
    Case("Korean negation", HANDBOOK, "신입 직원은 수습 기간을 거치지 않는다.", False),
    Case("Korean negation", HANDBOOK, "정규직 직원은 연차 휴가를 받지 못한다.", False),
    Case("Korean negation", HANDBOOK, "정규직 직원은 연차 휴가를 안 받는다.", False),
    Case("Korean negation", HANDBOOK, "수습 기간에는 연차가 있다.", False),
    Case("Korean negation", HANDBOOK, "팀장은 세 명이 아니다.", False),
    Case("Korean negation", HANDBOOK, "수습 기간에는 연차가 없습니다.", True),
    Case("Korean number", HANDBOOK, "신입 직원은 처음 6개월 동안 수습 기간을 거친다.", False),
    Case("Korean number", HANDBOOK, "정규직 직원은 매년 15일의 연차 휴가를 받는다.", False),
    Case("Korean number", HANDBOOK, "팀장은 다섯 명이다.", False),
    Case("Korean number", HANDBOOK, "팀장은 3명이다.", True),
    Case("Korean number", HANDBOOK, "정규직 직원은 해마다 20일의 연차 휴가를 받는다.", True),
    # Korean numerals: the same number in native or Sino-Korean words, or another one.
    Case("Korean number", HANDBOOK, "신입 직원은 처음 석 달 동안 수습 기간을 거친다.", True),
    Case("Korean number", HANDBOOK, "정규직 직원은 매년 이십 일의 연차 휴가를 받는다.", True),
    Case("Korean number", HANDBOOK, "신입 직원은 처음 여섯 달 동안 수습 기간을 거친다.", False),
    Case("Korean number", HANDBOOK, "정규직 직원은 매년 십오 일의 연차 휴가를 받는다.", False),
)  # fmt: skip
CASES: tuple[Case, ...] = (
    # Negation: the claim and its best evidence sentence differ only in polarity, or agree.
    Case("negation", ASPIRIN, "Aspirin is safe for children with viral infections.", False),
    Case("negation", ASPIRIN, "Aspirin is not safe for children with viral infections.", True),
    Case("negation", TRIAL, "The drug reduced the risk of heart attacks in the trial.", False),
    Case("negation", TRIAL, "The drug did not reduce the risk of heart attacks.", True),
    Case("negation", TRIAL, "The drug lowered blood pressure.", False),
    Case("negation", TRIAL, "The drug failed to lower blood pressure.", True),
    Case("negation", TRIAL, "Patients who took it had serious side effects.", False),
    Case("negation", TRIAL, "Patients who took the drug had no serious side effects.", True),
    Case("negation", EINSTEIN, "Einstein won a second Nobel Prize.", False),
    Case("negation", EINSTEIN, "Einstein never won a second Nobel Prize.", True),
    Case("negation", ASPIRIN, "Aspirin isn't safe for children with the flu.", True),
    Case("negation", TEAM, "The team did not win the final against Brazil.", False),
    # Changed number: the same sentence with another number.
    Case("changed number", CURIE, "Marie Curie won three Nobel Prizes.", False),
    Case("changed number", CURIE, "Marie Curie won two Nobel Prizes.", True),
    Case("changed number", EINSTEIN, "Einstein won two Nobel Prizes.", False),
    Case("changed number", MARKET, "The company's shares rose 21% on Tuesday.", False),
    Case("changed number", MARKET, "The company's shares rose 12% on Tuesday.", True),
    Case("changed number", MARKET, "Revenue increased to 2.4 billion dollars.", False),
    Case("changed number", EIFFEL, "The Eiffel Tower is 300 metres tall.", False),
    Case("changed number", EIFFEL, "The Eiffel Tower is 330 metres tall.", True),
    Case("changed number", RIVER, "The river is 21 kilometres long.", False),
    Case("changed number", TEAM, "The stadium holds twenty thousand people.", False),
    # Number in words or units: the same quantity spelled another way, or another quantity.
    Case("number in words or units", WATER, "Water boils at 100 degrees Celsius.", True),
    Case("number in words or units", WATER, "Water boils at 212 degrees Fahrenheit.", True),
    Case("number in words or units", WATER, "Water boils at 90 degrees Celsius.", False),
    Case("number in words or units", EINSTEIN, "Einstein won one Nobel Prize.", True),
    Case("number in words or units", CURIE, "Marie Curie won 2 Nobel Prizes.", True),
    Case("number in words or units", CURIE, "Marie Curie won only one Nobel Prize.", False),
    Case("number in words or units", RIVER, "The river is twelve km long.", True),
    Case("number in words or units", RIVER, "The river is 12 miles long.", False),
    Case("number in words or units", TEAM, "The stadium holds 12,000 people.", True),
    Case("number in words or units", BERLIN, "The wall divided the city for 30 years.", True),
    Case("number in words or units", RIVER, "The bridge opened at 15:00.", True),
    Case("number in words or units", RIVER, "The bridge opened at 9 am.", False),
    # Dates and years.
    Case("date", BERLIN, "The Berlin Wall fell in 1998.", False),
    Case("date", EIFFEL, "The Eiffel Tower was completed in 1898.", False),
    Case("date", EIFFEL, "Construction of the Eiffel Tower finished in 1889.", True),
    Case("date", TEAM, "Ana Silva joined the club in 2015.", True),
    Case("date", TEAM, "Ana Silva joined the club in 2013.", False),
    Case("date", RIVER, "The bridge opened on 5 May 2001.", True),
    Case("date", RIVER, "The bridge opened in 2010.", False),
    Case("date", BERLIN, "Germany was reunified in 1990.", True),
    Case("date", BERLIN, "Germany was reunified in 1989.", False),
    # Opposite word: the evidence says the opposite with another word.
    Case("opposite word", MARKET, "The company's shares fell 12% on Tuesday.", False),
    Case("opposite word", MARKET, "The company's shares rose 12% on Tuesday.", True),
    Case("opposite word", MARKET, "Revenue decreased to 4.2 billion dollars.", False),
    Case("opposite word", MARKET, "Revenue increased to 4.2 billion dollars.", True),
    Case("opposite word", MARKET, "The firm would lose new contracts in Asia.", False),
    Case("opposite word", TEAM, "The team lost the final against Brazil.", False),
    Case("opposite word", TEAM, "The team won the final against Brazil.", True),
    Case("opposite word", RIVER, "Its water level rose during the dry summer.", False),
    Case("opposite word", RIVER, "Its water level fell during the dry summer.", True),
    Case("opposite word", ASPIRIN, "Adults take aspirin to raise fever.", False),
    # Swapped entity: who or where changed.
    Case("swapped entity", CURIE, "Marie Curie was born in Paris.", False),
    Case("swapped entity", CURIE, "Marie Curie was born in Warsaw.", True),
    Case("swapped entity", TEAM, "The team won the final against Argentina.", False),
    Case("swapped entity", EIFFEL, "The Eiffel Tower stands on the Champ de Mars in Lyon.", False),
    Case("swapped entity", EINSTEIN, "Einstein won a Nobel Prize in chemistry.", False),
    Case("swapped entity", TEAM, "Brazil won the final against the team.", False),
    # Paraphrase: supported in other words.
    Case("paraphrase", BERLIN, "The Berlin Wall fell in 1989.", True),
    Case("paraphrase", EIFFEL, "The Eiffel Tower was completed in 1889.", True),
    Case("paraphrase", ASPIRIN, "Aspirin can be dangerous for children who have the flu.", True),
    Case("paraphrase", WATER, "Adding salt makes the boiling point of water a bit higher.", True),
    Case("paraphrase", MARKET, "Tuesday's strong results sent the company's stock up 12%.", True),
    Case("paraphrase", CURIE, "Curie received the Nobel Prize twice.", True),
    # Unrelated context.
    Case("unrelated context", WATER, "Marie Curie won two Nobel Prizes.", False),
    Case("unrelated context", RIVER, "The Eiffel Tower is 330 metres tall.", False),
    Case("unrelated context", TRIAL, "The team won the final against Brazil.", False),
    Case("unrelated context", BERLIN, "Aspirin lowers fever in adults.", False),
    *KOREAN,
)

ASSERTED = {
    "polarity": ("negation",),
    "quantities": ("changed number", "number in words or units", "date"),
    "opposites": ("opposite word",),
    "Korean": (ENDINGS, "Korean negation", "Korean number"),
}
"""The kinds the judge's signals aim at, by signal family; each must be right >= 90%."""
TARGET = 0.9


def kinds() -> Iterator[str]:
    yield from dict.fromkeys(c.kind for c in CASES)


def test_every_asserted_kind_holds_both_answers() -> None:
    for kind in (k for family in ASSERTED.values() for k in family):
        assert {c.supported for c in CASES if c.kind == kind} == {True, False}, kind
    assert set(kinds()) >= {k for family in ASSERTED.values() for k in family}


def test_korean_cases_under_the_shipped_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped rule reads text only, so the Korean cases run without the model."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))  # no calibrated profile of the user's
    manifest = load_manifest(DEFAULT_MODEL)
    version = manifest.scorers[RECALL].prompt_version or ""
    profile = find_profile(RECALL, manifest.fingerprint, version, manifest.threshold).profile
    assert not profile.uses_model
    right: dict[str, list[bool]] = {}
    for case in KOREAN:
        p = profile.probability(lexical_signals(case.context, case.claim))
        right.setdefault(case.kind, []).append((p >= profile.threshold) == case.supported)
    for kind, marks in right.items():
        assert sum(marks) / len(marks) >= TARGET, f"{kind}: {sum(marks)}/{len(marks)} right"


def shipped_profile() -> JudgeProfile:
    """The profile the embedded model's runs use, as shipped beside its manifest."""
    manifest = load_manifest(DEFAULT_MODEL)
    version = manifest.scorers[RECALL].prompt_version or ""
    found = find_profile(RECALL, manifest.fingerprint, version, manifest.threshold)
    assert found.origin is ProfileOrigin.SHIPPED
    return found.profile


def test_share_right_per_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cases through the scorer's judge under the shipped rule, which reads the text only:
    the engine under it is never asked for an answer, so no model is loaded for it."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))  # no calibrated profile of the user's
    profile = shipped_profile()
    assert not profile.uses_model
    engine = FakeEngine()
    scorer = create_context_recall_scorer(
        engine, ContextRecallOptions(context=["unused"]), profile=profile
    )
    found = scorer.assess([(c.context, c.claim) for c in CASES])
    assert engine.answer_calls == []
    results = []
    for case, assessment in zip(CASES, found, strict=True):
        assert not isinstance(assessment, Failed), assessment
        assert assessment.model_p_yes is None
        results.append((case, assessment.probability))
    right: dict[str, list[bool]] = {}
    for case, p in results:
        right.setdefault(case.kind, []).append((p >= scorer.threshold) == case.supported)
    lines = [f"threshold {scorer.threshold:.3f}"]
    for kind, marks in right.items():
        lines.append(f"{kind}: {sum(marks)}/{len(marks)} right")
    for case, p in results:
        if (p >= scorer.threshold) != case.supported:
            lines.append(f"  wrong ({case.kind}, P={p:.2f}): {case.claim}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    for family, family_kinds in ASSERTED.items():
        marks = [m for k in family_kinds for m in right[k]]
        share = sum(marks) / len(marks)
        assert share >= TARGET, f"{family}: {share:.2f} right ({sum(marks)}/{len(marks)})"


def model_p_yes(engine: Any, prompt: Prompt, yes: str, no: str) -> float:
    """The model's P(yes) over yes and no, from its logits after the prompt in one plain
    forward pass (none of the engine's shared heads or caches)."""
    import torch

    ids = torch.tensor([engine.chat.ids(prompt)])
    with torch.inference_mode():
        logits = engine.model(input_ids=ids).logits[0, -1].float()
    pair = torch.stack(
        [torch.logsumexp(logits[list(engine.chat.answer_ids(w))], 0) for w in (yes, no)]
    )
    return float(torch.softmax(pair, dim=-1)[0])


@pytest.mark.model
def test_a_profile_that_asks_the_model_decides_on_its_p_yes(embedded: Engine) -> None:
    """End to end on the embedded model under a profile of the model's logit and word overlap:
    each verdict records the model's own P(yes) for its claim against the chunk, and its
    probability is the profile's over that P(yes) and the text's signals."""
    shipped = shipped_profile()
    profile = JudgeProfile(
        model_fingerprint=shipped.model_fingerprint,
        prompt_version=shipped.prompt_version,
        signals=("model", "overlap"),
        means=(0.0, 0.5),
        scales=(1.0, 0.25),
        weights=(1.0, 1.5),
        bias=0.0,
        threshold=0.5,
    )
    assert profile.uses_model and not profile.is_plain
    context = "The Eiffel Tower is in Paris. It was completed in 1889."
    scorer = create_context_recall_scorer(
        embedded, ContextRecallOptions(context=[context]), profile=profile
    )
    result = scorer.run(
        {"ground_truth": "The Eiffel Tower is in Paris. The Moon is made of cheese."}
    )
    assert result.status == Status.OK and result.verdicts, result
    yes, no = scorer.prompts.judge.yes, scorer.prompts.judge.no
    seen = []
    for verdict in result.verdicts:
        p_yes = model_p_yes(embedded, scorer.prompts.judge_prompt(context, verdict.claim), yes, no)
        assert verdict.model_p_yes == pytest.approx(p_yes, abs=1e-4), verdict.claim
        assert verdict.model_p_yes is not None
        values = {**lexical_signals(context, verdict.claim), "model": verdict.model_p_yes}
        assert verdict.probability == pytest.approx(profile.probability(values), abs=1e-6)
        assert verdict.supported is (verdict.probability >= profile.threshold)
        seen.append(verdict.model_p_yes)
    assert len(set(seen)) == len(seen), "the model answered every claim alike"
