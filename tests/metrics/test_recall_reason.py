"""Context recall's reason, word for word: the score, then the claims found with their chunk
and the claims missing, each list in the ground truth's order."""

from __future__ import annotations

from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer

CONTEXT = ["Paris is in France.", "Lyon is in France."]
TRUTH = "Paris is in France. Cats can fly. Lyon is in France. Fish can sing."


def test_the_reason_lists_the_claims_found_and_those_missing() -> None:
    scorer = create_context_recall_scorer(FakeEngine(), ContextRecallOptions(context=CONTEXT))
    result = scorer.run({"groundTruth": TRUTH})
    assert result.score == 0.5
    assert result.reason == (
        "The score is 0.5 because 2 of 4 ground-truth claims are supported by the context. "
        'Found: "Paris is in France." (context chunk 0); "Lyon is in France." (context chunk 1). '
        'Missing: "Cats can fly."; "Fish can sing.".'
    )
