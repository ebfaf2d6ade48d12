"""What context precision records per run: a relevance verdict per retrieved chunk."""

from __future__ import annotations

from pydantic import Field

from ...scorer.results import Frozen, MaybeProbability, Probability, ScoreResult, Verdict


class ChunkVerdict(Frozen):
    """The judgment of one retrieved chunk: is it useful for arriving at the expected answer?"""

    chunk_index: int = Field(description="The chunk's position in the run's context")
    relevant: bool
    probability: Probability = Field(
        description="The judge profile's probability that the chunk is relevant (its best "
        "piece, for a chunk cut to fit the model); relevant when it reaches the threshold",
    )
    model_p_yes: MaybeProbability = Field(
        default=None,
        description="The model's own P(yes) for that piece; None when the profile does not ask "
        "the model",
    )


class PrecisionResult(ScoreResult):
    """Context precision of one run: how early and how purely the relevant chunks come."""

    verdicts: tuple[ChunkVerdict, ...] = ()

    @property
    def relevant(self) -> list[int]:
        """The positions of the relevant chunks, in retrieved order."""
        return [v.chunk_index for v in self.verdicts if v.relevant]

    def judgments(self) -> list[Verdict]:
        return [
            Verdict(
                key=f"chunk {v.chunk_index}",
                text=f"chunk {v.chunk_index} (rank {rank})",
                positive=v.relevant,
                probability=v.probability,
                chunk_index=v.chunk_index,
                of_chunk=True,
            )
            for rank, v in enumerate(self.verdicts, start=1)
        ]
