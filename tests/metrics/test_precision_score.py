"""Context precision's reason from its verdicts (no engine)."""

from __future__ import annotations

from offline_recall.metrics.precision.result import ChunkVerdict
from offline_recall.metrics.precision.score import average_precision, explain


def verdicts(*relevant: bool) -> list[ChunkVerdict]:
    return [
        ChunkVerdict(chunk_index=i, relevant=r, probability=0.8 if r else 0.2)
        for i, r in enumerate(relevant)
    ]


def test_no_relevant_chunk_is_said_so() -> None:
    assert explain(verdicts(False, False), 0.0) == (
        "The score is 0 because none of the 2 retrieved chunks is relevant to the expected answer."
    )


def test_only_irrelevant_chunks_ahead_of_the_last_relevant_one_are_named() -> None:
    found = verdicts(False, True, False, True, False)
    assert average_precision([v.relevant for v in found]) == (1 / 2 + 2 / 4) / 2
    assert explain(found, 0.5) == (
        "The score is 0.5 because 2 of 5 retrieved chunks are relevant: chunk 1 (rank 2), "
        "chunk 3 (rank 4). Ranked ahead of a relevant chunk but not relevant: chunk 0 (rank 1), "
        "chunk 2 (rank 3)."
    )
