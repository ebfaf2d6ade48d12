"""The score and the reason, computed from chunk verdicts in Python, never by the model."""

from __future__ import annotations

from collections.abc import Sequence

from ...scorer.results import round_half_up
from .result import ChunkVerdict


def average_precision(relevant: Sequence[bool]) -> float:
    """Mean, over the relevant positions, of the share of relevant chunks up to each one (the
    reference's "MAP" of one ranked list); 0 when no chunk is relevant."""
    found = 0
    total = 0.0
    for rank, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            found += 1
            total += found / rank
    return total / found if found else 0.0


def precision_score(verdicts: Sequence[ChunkVerdict], scale: float) -> float:
    """Average precision of the chunks in retrieved order, times scale, rounded half-up."""
    return round_half_up(average_precision([v.relevant for v in verdicts]) * scale)


def _ranks(verdicts: Sequence[tuple[int, ChunkVerdict]]) -> str:
    return ", ".join(f"chunk {v.chunk_index} (rank {rank})" for rank, v in verdicts)


def explain(verdicts: Sequence[ChunkVerdict], score: float) -> str:
    """A readable reason: the score, the relevant chunks and their ranks, and the irrelevant
    chunks ranked ahead of a relevant one."""
    ranked = list(enumerate(verdicts, start=1))
    relevant = [(r, v) for r, v in ranked if v.relevant]
    if not relevant:
        return (
            f"The score is {score:g} because none of the {len(verdicts)} retrieved chunks is "
            "relevant to the expected answer."
        )
    last = relevant[-1][0]
    ahead = [(r, v) for r, v in ranked if not v.relevant and r < last]
    parts = [
        f"The score is {score:g} because {len(relevant)} of {len(verdicts)} retrieved chunks "
        f"are relevant: {_ranks(relevant)}."
    ]
    if ahead:
        parts.append(f"Ranked ahead of a relevant chunk but not relevant: {_ranks(ahead)}.")
    return " ".join(parts)


NO_ANSWER_REASON = (
    "The score is 0 because the run has neither a ground truth nor an output to judge the "
    "context against."
)
