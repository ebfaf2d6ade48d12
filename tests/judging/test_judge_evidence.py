"""A profile that names an evidence size has the model judge a claim against the chunk's
best-matching sentences, not the whole chunk."""

from __future__ import annotations

import pytest

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.judging.profile import JudgeProfile

CLAIM = "The tower was finished in 1889."
BEST = "Work on the tower was finished in 1889."
CHUNK = f"Paris is the capital of France. It has many bridges. {BEST} It is tall."
P_YES: dict[tuple[str, ...], float] = {(CHUNK, CLAIM): 0.2, (BEST, CLAIM): 0.9}
"""What the model says of the claim next to the whole chunk, and next to its best sentence."""


def model_rule(evidence_sentences: int | None) -> JudgeProfile:
    return JudgeProfile(
        model_fingerprint="",
        prompt_version="",
        signals=("model",),
        means=(0.0,),
        scales=(1.0,),
        weights=(1.0,),
        bias=0.0,
        threshold=0.5,
        evidence_sentences=evidence_sentences,
    )


@pytest.mark.parametrize(
    ("evidence_sentences", "asked", "p_yes", "supported"),
    [(None, CHUNK, 0.2, False), (1, BEST, 0.9, True)],
    ids=["whole chunk", "best sentence"],
)
def test_the_model_judges_the_claim_against_what_the_profile_names(
    evidence_sentences: int | None, asked: str, p_yes: float, supported: bool
) -> None:
    engine = FakeEngine(lists={CLAIM: [CLAIM]}, p_yes=P_YES)
    scorer = create_context_recall_scorer(
        engine, ContextRecallOptions(context=[CHUNK]), profile=model_rule(evidence_sentences)
    )
    (verdict,) = scorer.run({"groundTruth": CLAIM}).verdicts
    assert (verdict.model_p_yes, verdict.supported) == (p_yes, supported)
    assert engine.answer_calls == [[(asked, CLAIM)]]
