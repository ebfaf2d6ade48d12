"""The reference scorer's rules, on the fake backend."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import (
    ConfigurationError,
    ContextRecallOptions,
    FakeEngine,
    Status,
    create_context_recall_scorer,
)
from offline_recall.engines import Failed
from offline_recall.judging.profile import threshold_profile
from offline_recall.scorer.results import ScorerInput, round_half_up

CTX = ["The Eiffel Tower is in Paris.", "It was completed in 1889."]


def scorer(fake: FakeEngine, **options: Any):  # type: ignore[no-untyped-def]
    options.setdefault("context", CTX)
    return create_context_recall_scorer(fake, ContextRecallOptions(**options))


def test_construction_needs_a_context_source(fake: FakeEngine) -> None:
    with pytest.raises(ConfigurationError, match="context"):
        create_context_recall_scorer(fake, ContextRecallOptions())
    with pytest.raises(ConfigurationError, match="context"):
        create_context_recall_scorer(fake)


def test_construction_refuses_an_empty_context_list(fake: FakeEngine) -> None:
    with pytest.raises(ConfigurationError, match="empty"):
        ContextRecallOptions(context=[])


@pytest.mark.parametrize(
    "missing",
    [{}, {"ground_truth": None}, {"groundTruth": ""}, {"groundTruth": "   "}, {"groundTruth": []}],
)
def test_no_ground_truth_scores_zero_without_calling_the_model(
    fake: FakeEngine, missing: dict[str, Any]
) -> None:
    result = scorer(fake).run({"input": "q", "output": "a", **missing})
    assert result.status is Status.NO_GROUND_TRUTH
    assert result.score == 0
    assert "no ground truth" in result.reason
    assert fake.json_calls == [] and fake.answer_calls == []


def test_zero_claims_scores_zero(fake: FakeEngine) -> None:
    fake = FakeEngine(lists={"Something.": ["  ", " "]})
    result = scorer(fake).run({"groundTruth": "Something."})
    assert result.status is Status.NO_CLAIMS
    assert result.score == 0
    assert fake.answer_calls == []


def test_score_is_the_supported_share_rounded_half_up() -> None:
    claims = [f"claim {i}" for i in range(8)]
    p_yes = {(CTX[0], c): (0.9 if i == 0 else 0.1) for i, c in enumerate(claims)}
    p_yes |= {(CTX[1], c): 0.0 for c in claims}
    fake = FakeEngine(lists={"gt": claims}, p_yes=p_yes)
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.score == 0.13  # 1/8 = 0.125 rounds up
    assert len(result.verdicts) == 8


@pytest.mark.parametrize(("scale", "expected"), [(1, 0.5), (10, 5.0), (0, 0.5), (None, 0.5)])
def test_scale(scale: float | None, expected: float) -> None:
    fake = FakeEngine(lists={"gt": ["The Eiffel Tower is in Paris.", "Bananas grow."]})
    assert scorer(fake, scale=scale).run({"groundTruth": "gt"}).score == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.125, 0.13), (1.005, 1.01), (2 / 3, 0.67), (1 / 3 * 10, 3.33), (0.5, 0.5), (0.0, 0.0)],
)
def test_round_half_up_matches_javascript(value: float, expected: float) -> None:
    assert round_half_up(value) == expected


def test_non_string_ground_truth_is_json_text(fake: FakeEngine) -> None:
    scorer(fake).run({"groundTruth": {"city": "Paris", "year": 1889}})
    assert fake.json_calls == [['{"city": "Paris", "year": 1889}']]


def test_duplicate_claims_are_removed() -> None:
    fake = FakeEngine(lists={"gt": ["Paris is big.", "paris  is big.", "Rome is old."]})
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.claims == ["Paris is big.", "Rome is old."]


def test_each_claim_gets_one_verdict_with_its_supporting_chunk() -> None:
    fake = FakeEngine(lists={"gt": ["It was completed in 1889.", "It is 330 metres tall."]})
    result = scorer(fake).run({"groundTruth": "gt"})
    found, missing = result.verdicts
    assert (found.supported, found.chunk_index, found.probability) == (True, 1, 1.0)
    assert (missing.supported, missing.chunk_index) == (False, None)
    assert result.score == 0.5
    assert '"It was completed in 1889." (context chunk 1)' in result.reason
    assert 'Missing: "It is 330 metres tall."' in result.reason


def test_threshold_decides_support() -> None:
    claims = {"gt": ["a", "b"]}
    p_yes = {(CTX[0], "a"): 0.6, (CTX[1], "a"): 0.2, (CTX[0], "b"): 0.59, (CTX[1], "b"): 0.1}
    fake = FakeEngine(lists=claims, p_yes=p_yes)
    s = create_context_recall_scorer(
        fake, ContextRecallOptions(context=CTX), profile=threshold_profile(0.6)
    )
    verdicts = s.run({"groundTruth": "gt"}).verdicts
    assert [v.supported for v in verdicts] == [True, False]
    assert [v.probability for v in verdicts] == [0.6, 0.59]


def _agent_run(snake: bool = False) -> dict[str, Any]:
    """A run shaped as the reference's agent runs are (or with snake_case keys)."""
    keys = (
        ("input_messages", "remembered_messages", "system_messages", "tagged_system_messages")
        if snake
        else ("inputMessages", "rememberedMessages", "systemMessages", "taggedSystemMessages")
    )
    created = "created_at" if snake else "createdAt"
    message = {"id": "m1", "role": "assistant", "content": "Let me look.", created: "2025-01-01"}
    return {
        "input": {
            keys[0]: [{"role": "user", "content": "When?"}],
            keys[1]: [],
            keys[2]: [],
            keys[3]: {},
        },
        "output": [{**message, "tool": "It was completed in 1889."}],
        "groundTruth": "It was completed in 1889.",
    }


def _tool_results(_input: Any, output: Any) -> list[str]:
    return [m["tool"] for m in output if "tool" in m]


@pytest.mark.parametrize("snake", [False, True])
def test_extractor_wins_for_agent_shaped_runs_when_both_are_given(snake: bool) -> None:
    fake = FakeEngine()
    s = scorer(fake, context=["Unrelated text."], context_extractor=_tool_results)
    result = s.run(_agent_run(snake))
    assert fake.answer_calls == [[("It was completed in 1889.", "It was completed in 1889.")]]
    assert result.score == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda run: run["input"].pop("rememberedMessages"),
        lambda run: run["input"].update(taggedSystemMessages=[]),
        lambda run: run["output"][0].pop("id"),
        lambda run: run["output"][0].pop("createdAt"),
        lambda run: run.update(output={"role": "assistant"}),
    ],
    ids=["no-remembered", "tagged-not-object", "message-without-id", "no-createdAt", "not-list"],
)
def test_runs_that_are_not_agent_shaped_use_the_static_context(change: Any) -> None:
    """The reference's check: all four input fields, and every output message complete."""
    fake = FakeEngine()
    s = scorer(fake, context=["Unrelated text."], context_extractor=_tool_results)
    run = _agent_run()
    change(run)
    s.run(run)
    assert fake.answer_calls == [[("Unrelated text.", "It was completed in 1889.")]]


def test_static_context_wins_for_plain_runs_when_both_are_given() -> None:
    fake = FakeEngine()
    s = scorer(fake, context=["Unrelated text."], context_extractor=_tool_results)
    s.run({"input": "When?", "output": "In 1889.", "groundTruth": "It was completed in 1889."})
    assert fake.answer_calls == [[("Unrelated text.", "It was completed in 1889.")]]


def test_extractor_alone_is_used_for_any_run() -> None:
    fake = FakeEngine()
    s = create_context_recall_scorer(fake, ContextRecallOptions(context_extractor=lambda i, o: [o]))
    assert s.run(ScorerInput(input="q", output="Paris.", ground_truth="Paris.")).score == 1


def test_a_failing_extractor_fails_only_its_run() -> None:
    def extractor(_i: Any, output: Any) -> list[str]:
        if output == "boom":
            raise RuntimeError("tool output missing")
        return [output]

    s = create_context_recall_scorer(
        FakeEngine(), ContextRecallOptions(context_extractor=extractor)
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
    fake = FakeEngine(lists={"gt": Failed("claim list not finished")})
    result = scorer(fake).run({"groundTruth": "gt"})
    assert result.status is Status.ERROR
    assert result.score is None
    assert result.error == "claim list not finished"


class Crashy(FakeEngine):
    """An engine that raises on any batch holding a claim with "poison" in it."""

    def answer_probabilities(self, prompts, answers, done=None):  # type: ignore[no-untyped-def]
        if any("poison" in p.fields[-1] for p in prompts):
            raise RuntimeError("engine fault")
        return super().answer_probabilities(prompts, answers, done=done)


def test_an_engine_crash_on_a_batch_is_isolated_to_the_run_that_causes_it() -> None:
    s = scorer(Crashy())
    results = s.run_many([{"groundTruth": "Paris."}, {"groundTruth": "poison."}])
    assert [r.status for r in results] == [Status.OK, Status.ERROR]
    assert "engine fault" in (results[1].error or "")


def test_an_engine_crash_on_a_single_run_is_its_error_result() -> None:
    """One run alone in its batch: the engine's fault is the run's error, not an exception."""
    result = scorer(Crashy()).run({"groundTruth": "poison."})
    assert result.status is Status.ERROR and result.score is None
    assert "engine fault" in (result.error or "")


def test_an_engine_failure_on_one_prompt_fails_only_its_run() -> None:
    class OneFails(FakeEngine):
        def answer_probabilities(self, prompts, answers, done=None):  # type: ignore[no-untyped-def]
            found = super().answer_probabilities(prompts, answers, done=done)
            return [
                Failed("server returned 500") if "poison" in p.fields[-1] else f
                for p, f in zip(prompts, found, strict=True)
            ]

    ok, bad = scorer(OneFails()).run_many([{"groundTruth": "Paris."}, {"groundTruth": "poison."}])
    assert ok.status is Status.OK
    assert (bad.status, bad.error) == (Status.ERROR, "server returned 500")


def test_an_engine_failure_on_one_sentence_fails_its_run_not_falls_back() -> None:
    """Sentence by sentence (prompt v3), the fallback to a ground truth's own sentences covers
    what the model wrote; a sentence the engine failed on is its run's error."""

    class OneSentenceFails(FakeEngine):
        def generate_json(self, prompts, output, *, done=None):  # type: ignore[no-untyped-def]
            found = super().generate_json(prompts, output, done=done)
            return [
                Failed("malformed response from the server") if "poison" in str(p.messages) else f
                for p, f in zip(prompts, found, strict=True)
            ]

    engine = OneSentenceFails(prompt_version="v3")
    ok, bad = scorer(engine).run_many(
        [{"groundTruth": "Paris is in France."}, {"groundTruth": "Rome is old. A poison pill."}]
    )
    assert ok.status is Status.OK
    assert (bad.status, bad.error) == (Status.ERROR, "malformed response from the server")


def test_chunk_index_counts_blank_chunks() -> None:
    """Blank chunks are not judged, but the index names the chunk in the list as given."""
    s = create_context_recall_scorer(
        FakeEngine(), ContextRecallOptions(context=["   ", "Paris is in France."])
    )
    verdict = s.run({"groundTruth": "Paris is in France."}).verdicts[0]
    assert (verdict.supported, verdict.chunk_index) == (True, 1)


@pytest.mark.parametrize("falsy", [0, False, 0.0, float("nan")])
def test_falsy_ground_truths_count_as_missing_as_in_the_reference(falsy: Any) -> None:
    fake = FakeEngine()
    result = scorer(fake).run({"groundTruth": falsy})
    assert result.status is Status.NO_GROUND_TRUTH and result.score == 0
    assert fake.json_calls == []


def test_a_non_falsy_number_is_judged_as_its_json_text(fake: FakeEngine) -> None:
    scorer(fake).run({"groundTruth": 42})
    assert fake.json_calls == [["42"]]


def test_the_scorer_carries_the_reference_id_name_and_description(fake: FakeEngine) -> None:
    s = scorer(fake)
    assert s.id == "context-recall-scorer"
    assert s.name == "Context Recall Scorer"
    assert "ground-truth" in s.description


def _window(budget: int) -> int:
    """A fake engine's context window that leaves `budget` tokens for a context chunk."""
    probe = scorer(FakeEngine(context_window=100_000))
    return 100_000 - probe.context_budget + budget


def test_long_context_is_split_and_the_chunk_index_names_the_original_string() -> None:
    long = " ".join(f"Filler sentence number {i}." for i in range(50)) + " Paris is in France."
    fake = FakeEngine(context_window=_window(20))
    s = create_context_recall_scorer(fake, ContextRecallOptions(context=["Nothing here.", long]))
    assert s.context_budget == 20
    verdict = s.run({"groundTruth": "Paris is in France."}).verdicts[0]
    assert verdict.supported and verdict.chunk_index == 1
    judged = [ctx for ctx, _ in fake.answer_calls[0]]
    assert len(judged) > 3 and all(fake.count_tokens(c) <= 20 for c in judged)


def test_long_ground_truth_is_extracted_piece_by_piece() -> None:
    gt = " ".join(f"Fact number {i} is true." for i in range(30))
    fake = FakeEngine(context_window=_window(60))
    result = scorer(fake).run({"groundTruth": gt})
    assert len(fake.json_calls[0]) > 1
    assert len(result.verdicts) == 30


def test_identical_work_in_a_batch_is_done_once() -> None:
    fake = FakeEngine()
    runs = [{"groundTruth": "Paris is in France."}] * 3
    scorer(fake).run_many(runs)
    assert fake.json_calls == [["Paris is in France."]]
    assert len(fake.answer_calls[0]) == len(CTX)


def test_results_carry_model_prompt_and_profile_identity(fake: FakeEngine) -> None:
    s = scorer(fake)
    result = s.run({"groundTruth": "Paris."})
    assert result.model_fingerprint == fake.identity.fingerprint
    assert result.prompt_version == "v1"
    assert result.judge_profile == s.setup.judge_profile.digest
    assert result.library_version


def test_the_decided_probability_and_the_models_own_are_kept_apart() -> None:
    """Under a rule that leaves the model out, no P(yes) is claimed; under the plain rule the
    model's P(yes) is the decided probability."""
    lexical = create_context_recall_scorer(
        FakeEngine(),
        ContextRecallOptions(context=CTX),
        profile=threshold_profile(0.5).model_copy(
            update={"signals": ("overlap",), "weights": (10.0,), "means": (0.5,)}
        ),
    )
    verdict = lexical.run({"groundTruth": "The Eiffel Tower is in Paris."}).verdicts[0]
    assert verdict.model_p_yes is None and verdict.supported
    plain = scorer(FakeEngine()).run({"groundTruth": "The Eiffel Tower is in Paris."}).verdicts[0]
    assert plain.model_p_yes == plain.probability == 1.0


def test_identical_work_across_batches_is_done_once() -> None:
    fake = FakeEngine()
    s = scorer(fake)
    s.run_many([{"groundTruth": "Paris is in France."}])
    s.run_many([{"groundTruth": "Paris is in France."}, {"groundTruth": "Rome is in Italy."}])
    assert fake.json_calls == [["Paris is in France."], ["Rome is in Italy."]]
    assert [len(call) for call in fake.answer_calls] == [len(CTX), len(CTX)]


@pytest.mark.parametrize(
    ("claim", "p_yes"),
    [
        # Shares "the", "is" and "of" with the context, and no word that says anything.
        ("The Moon is made of cheese.", 0.0),
        ("Paris is in France.", 1.0),
        ("The capital of Spain is Madrid.", 1 / 3),
        ("It is what it was.", 0.0),  # no content word at all
    ],
)
def test_the_fake_engines_p_yes_is_the_share_of_the_claims_content_words(
    claim: str, p_yes: float
) -> None:
    fake = FakeEngine()
    s = create_context_recall_scorer(
        fake, ContextRecallOptions(context=["Paris is the capital of France."])
    )
    verdict = s.run({"groundTruth": claim}).verdicts[0]
    assert verdict.model_p_yes == pytest.approx(p_yes, abs=1e-6)
    assert verdict.supported is (p_yes >= 0.5)
