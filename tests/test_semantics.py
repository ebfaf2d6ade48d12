"""The reference scorer's rules, on the fake backend."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import (
    ConfigurationError,
    ContextRecallOptions,
    Failed,
    FakeBackend,
    ScorerRun,
    Status,
    create_context_recall_scorer,
)
from offline_recall.score import round_half_up

CTX = ["The Eiffel Tower is in Paris.", "It was completed in 1889."]


def scorer(fake: FakeBackend, **options: Any):  # type: ignore[no-untyped-def]
    options.setdefault("context", CTX)
    return create_context_recall_scorer(fake, ContextRecallOptions(**options))


def test_construction_needs_a_context_source(fake: FakeBackend) -> None:
    with pytest.raises(ConfigurationError, match="context"):
        create_context_recall_scorer(fake, ContextRecallOptions())
    with pytest.raises(ConfigurationError, match="context"):
        create_context_recall_scorer(fake)


def test_construction_refuses_an_empty_context_list(fake: FakeBackend) -> None:
    with pytest.raises(ConfigurationError, match="empty"):
        ContextRecallOptions(context=[])


@pytest.mark.parametrize(
    "missing",
    [{}, {"ground_truth": None}, {"groundTruth": ""}, {"groundTruth": "   "}, {"groundTruth": []}],
)
def test_no_ground_truth_scores_zero_without_calling_the_model(
    fake: FakeBackend, missing: dict[str, Any]
) -> None:
    result = scorer(fake).run({"input": "q", "output": "a", **missing})
    assert result.status is Status.NO_GROUND_TRUTH
    assert result.score == 0
    assert "no ground truth" in result.reason
    assert fake.extract_calls == [] and fake.judge_calls == []


def test_zero_claims_scores_zero(fake: FakeBackend) -> None:
    fake = FakeBackend(claims={"Something.": ["  ", ""]})
    result = scorer(fake).run({"groundTruth": "Something."})
    assert result.status is Status.NO_CLAIMS
    assert result.score == 0
    assert fake.judge_calls == []


def test_score_is_the_supported_share_rounded_half_up() -> None:
    claims = [f"claim {i}" for i in range(8)]
    p_yes = {(CTX[0], c): (0.9 if i == 0 else 0.1) for i, c in enumerate(claims)}
    p_yes |= {(CTX[1], c): 0.0 for c in claims}
    fake = FakeBackend(claims={"gt": claims}, p_yes=p_yes)
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.score == 0.13  # 1/8 = 0.125 rounds up
    assert len(result.verdicts) == 8


@pytest.mark.parametrize(("scale", "expected"), [(1, 0.5), (10, 5.0), (0, 0.5), (None, 0.5)])
def test_scale(scale: float | None, expected: float) -> None:
    fake = FakeBackend(claims={"gt": ["The Eiffel Tower is in Paris.", "Bananas grow."]})
    assert scorer(fake, scale=scale).run({"groundTruth": "gt"}).score == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.125, 0.13), (1.005, 1.01), (2 / 3, 0.67), (1 / 3 * 10, 3.33), (0.5, 0.5), (0.0, 0.0)],
)
def test_round_half_up_matches_javascript(value: float, expected: float) -> None:
    assert round_half_up(value) == expected


def test_non_string_ground_truth_is_json_text(fake: FakeBackend) -> None:
    scorer(fake).run({"groundTruth": {"city": "Paris", "year": 1889}})
    assert fake.extract_calls == [['{"city": "Paris", "year": 1889}']]


def test_duplicate_claims_are_removed() -> None:
    fake = FakeBackend(claims={"gt": ["Paris is big.", "paris  is big.", "Rome is old."]})
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.claims == ["Paris is big.", "Rome is old."]


def test_each_claim_gets_one_verdict_with_its_supporting_chunk() -> None:
    fake = FakeBackend(claims={"gt": ["It was completed in 1889.", "It is 330 metres tall."]})
    result = scorer(fake).run({"groundTruth": "gt"})
    found, missing = result.verdicts
    assert (found.supported, found.chunk_index, found.p_yes) == (True, 1, 1.0)
    assert (missing.supported, missing.chunk_index) == (False, None)
    assert result.score == 0.5
    assert '"It was completed in 1889." (context chunk 1)' in result.reason
    assert 'Missing: "It is 330 metres tall."' in result.reason


def test_threshold_decides_support() -> None:
    claims = {"gt": ["a", "b"]}
    p_yes = {(CTX[0], "a"): 0.6, (CTX[1], "a"): 0.2, (CTX[0], "b"): 0.59, (CTX[1], "b"): 0.1}
    fake = FakeBackend(claims=claims, p_yes=p_yes, threshold=0.6)
    verdicts = scorer(fake).run({"groundTruth": "gt"}).verdicts
    assert [v.supported for v in verdicts] == [True, False]
    assert [v.p_yes for v in verdicts] == [0.6, 0.59]


def _agent_run() -> dict[str, Any]:
    return {
        "input": {"inputMessages": [{"role": "user", "content": "When?"}]},
        "output": [
            {"role": "assistant", "content": "Let me look.", "tool": "It was completed in 1889."}
        ],
        "groundTruth": "It was completed in 1889.",
    }


def _tool_results(_input: Any, output: Any) -> list[str]:
    return [m["tool"] for m in output if "tool" in m]


def test_extractor_wins_for_agent_shaped_runs_when_both_are_given() -> None:
    fake = FakeBackend()
    s = scorer(fake, context=["Unrelated text."], context_extractor=_tool_results)
    result = s.run(_agent_run())
    assert fake.judge_calls == [[("It was completed in 1889.", "It was completed in 1889.")]]
    assert result.score == 1


def test_static_context_wins_for_plain_runs_when_both_are_given() -> None:
    fake = FakeBackend()
    s = scorer(fake, context=["Unrelated text."], context_extractor=_tool_results)
    s.run({"input": "When?", "output": "In 1889.", "groundTruth": "It was completed in 1889."})
    assert fake.judge_calls == [[("Unrelated text.", "It was completed in 1889.")]]


def test_extractor_alone_is_used_for_any_run() -> None:
    fake = FakeBackend()
    s = create_context_recall_scorer(fake, ContextRecallOptions(context_extractor=lambda i, o: [o]))
    assert s.run(ScorerRun(input="q", output="Paris.", ground_truth="Paris.")).score == 1


def test_a_failing_extractor_fails_only_its_run() -> None:
    def extractor(_i: Any, output: Any) -> list[str]:
        if output == "boom":
            raise RuntimeError("tool output missing")
        return [output]

    s = create_context_recall_scorer(
        FakeBackend(), ContextRecallOptions(context_extractor=extractor)
    )
    ok, bad = s.run_many(
        [
            {"output": "Paris is in France.", "groundTruth": "Paris is in France."},
            {"output": "boom", "groundTruth": "Paris is in France."},
        ]
    )
    assert ok.status is Status.OK and ok.score == 1
    assert bad.status is Status.ERROR and bad.score is None
    assert "tool output missing" in (bad.error or "")


def test_extraction_failure_is_an_error_result_not_a_zero() -> None:
    fake = FakeBackend(claims={"gt": Failed("claim list not finished")})
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.status is Status.ERROR
    assert result.score is None
    assert result.error == "claim list not finished"


def test_a_backend_crash_on_a_batch_is_isolated_to_the_run_that_causes_it() -> None:
    class Crashy(FakeBackend):
        def judge(self, pairs):  # type: ignore[no-untyped-def]
            if any("poison" in claim for _, claim in pairs):
                raise RuntimeError("engine fault")
            return super().judge(pairs)

    s = scorer(Crashy())
    results = s.run_many([{"groundTruth": "Paris."}, {"groundTruth": "poison."}])
    assert [r.status for r in results] == [Status.OK, Status.ERROR]
    assert "engine fault" in (results[1].error or "")


def test_long_context_is_split_and_the_chunk_index_names_the_original_string() -> None:
    long = " ".join(f"Filler sentence number {i}." for i in range(50)) + " Paris is in France."
    fake = FakeBackend(context_budget=20)
    s = create_context_recall_scorer(fake, ContextRecallOptions(context=["Nothing here.", long]))
    verdict = s.run({"groundTruth": "Paris is in France."}).verdicts[0]
    assert verdict.supported and verdict.chunk_index == 1
    judged = [ctx for ctx, _ in fake.judge_calls[0]]
    assert len(judged) > 3 and all(fake.count_tokens(c) <= 20 for c in judged)


def test_long_ground_truth_is_extracted_piece_by_piece() -> None:
    gt = " ".join(f"Fact number {i} is true." for i in range(30))
    fake = FakeBackend(text_budget=16)
    result = scorer(fake).run({"groundTruth": gt})
    assert len(fake.extract_calls[0]) > 1
    assert len(result.verdicts) == 30


def test_identical_work_in_a_batch_is_done_once() -> None:
    fake = FakeBackend()
    runs = [{"groundTruth": "Paris is in France."}] * 3
    scorer(fake).run_many(runs)
    assert fake.extract_calls == [["Paris is in France."]]
    assert len(fake.judge_calls[0]) == len(CTX)


def test_results_carry_model_and_prompt_identity(fake: FakeBackend) -> None:
    result = scorer(fake).run({"groundTruth": "Paris."})
    assert result.model_fingerprint == fake.info.fingerprint
    assert result.prompt_version == "fake"
    assert result.library_version


def test_identical_work_across_batches_is_done_once() -> None:
    fake = FakeBackend()
    s = scorer(fake)
    s.run_many([{"groundTruth": "Paris is in France."}])
    s.run_many([{"groundTruth": "Paris is in France."}, {"groundTruth": "Rome is in Italy."}])
    assert fake.extract_calls == [["Paris is in France."], ["Rome is in Italy."]]
    assert [len(call) for call in fake.judge_calls] == [len(CTX), len(CTX)]
