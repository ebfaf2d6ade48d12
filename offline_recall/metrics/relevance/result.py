"""What context relevance records per run: a graded verdict per chunk, and what was missing."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from ...scorer.results import Frozen, MaybeProbability, Probability, ScoreResult, Verdict


class Level(StrEnum):
    """How relevant a chunk is to the question and the response, best first."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NONE = "none"


WEIGHTS = {Level.HIGH: 1.0, Level.MEDIUM: 0.7, Level.LOW: 0.3, Level.NONE: 0.0}
"""Each level's share of a chunk's full marks, as in the reference."""


class LevelProbabilities(Frozen):
    """The probability of each level (they sum to 1)."""

    high: Probability
    medium: Probability
    low: Probability
    none: Probability


class ChunkRelevance(Frozen):
    """The graded verdict of one retrieved chunk."""

    chunk_index: int = Field(description="The chunk's position in the run's context")
    level: Level = Field(
        description="The highest level that, with the levels above it, has even odds or better"
    )
    used: bool = Field(description="The response reflects one of the chunk's sentences")
    probability: Probability = Field(
        description="The judge profile's probability that the chunk is relevant (high or "
        "medium; its best piece, for a chunk cut to fit the model)",
    )
    levels: LevelProbabilities
    model_weight: MaybeProbability = Field(
        default=None,
        description="The model's expected level weight from its four-way answer for that "
        "piece; None when the profile does not ask the model",
    )


class RelevanceResult(ScoreResult):
    """Context relevance of one run: how relevant its chunks are, whether the response used the
    relevant ones, and what the response states that no chunk holds."""

    verdicts: tuple[ChunkRelevance, ...] = ()
    missing_context: tuple[str, ...] = Field(
        default=(), description="Sentences of the response that no chunk holds"
    )

    def judgments(self) -> list[Verdict]:
        return [
            Verdict(
                key=f"chunk {v.chunk_index}",
                text=f"chunk {v.chunk_index} ({v.level.value}{', used' if v.used else ''})",
                positive=v.level in (Level.HIGH, Level.MEDIUM),
                probability=v.probability,
                chunk_index=v.chunk_index,
                of_chunk=True,
            )
            for v in self.verdicts
        ]
