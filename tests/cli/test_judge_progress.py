"""The judging stage's progress, as a run shows it: every verdict counted once, from 0 up to
the number of pairs judged, whether the profile asks the model or reads the words alone."""

from __future__ import annotations

import pytest

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.judging.profile import JudgeProfile, threshold_profile

JUDGED = "verdicts judged"
CONTEXT = ["Paris is in France.", "Lyon is in France."]
RUNS = [
    {"groundTruth": "Paris is in France. Lyon is small and old."},
    {"groundTruth": "Nice is warm."},
]
PAIRS = 3 * len(CONTEXT)
"""Three claims, each judged against both chunks."""

WORDS_ONLY = JudgeProfile(
    model_fingerprint="",
    prompt_version="",
    signals=("overlap",),
    means=(0.0,),
    scales=(1.0,),
    weights=(4.0,),
    bias=-2.0,
    threshold=0.5,
)
"""A rule on the claim's words found in the chunk: the model is never asked."""


@pytest.mark.parametrize(
    "profile", [threshold_profile(0.5), WORDS_ONLY], ids=["model", "words only"]
)
def test_the_judging_stage_counts_each_pair_once_up_to_its_total(profile: JudgeProfile) -> None:
    ticks: list[tuple[str, int, int]] = []

    def progress(stage: str, done: int, total: int) -> None:
        ticks.append((stage, done, total))

    engine = FakeEngine()
    scorer = create_context_recall_scorer(
        engine, ContextRecallOptions(context=CONTEXT), profile=profile
    )
    results = scorer.run_many(RUNS, progress=progress)
    assert [r.score for r in results] == [0.5, 0.0]
    judged = [(done, total) for stage, done, total in ticks if stage == JUDGED]
    assert judged[0] == (0, PAIRS)
    assert judged[-1] == (PAIRS, PAIRS)
    assert all(done <= total for done, total in judged)
    assert bool(engine.answer_calls) is profile.uses_model
