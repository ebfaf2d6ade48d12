"""What a scorer on claims records per run: a verdict per claim."""

from __future__ import annotations

from pydantic import Field

from ..results import Frozen, MaybeProbability, Probability, ScoreResult, Verdict


class ClaimVerdict(Frozen):
    """The judgment of one claim against the context."""

    claim: str
    supported: bool
    probability: Probability = Field(
        description="The judge profile's probability that the claim is supported, at its best "
        "chunk; supported when it reaches the profile's threshold",
    )
    model_p_yes: MaybeProbability = Field(
        default=None,
        description="The model's own P(yes) at that chunk; None when the profile does not ask "
        "the model, or decides the pair without it (its chunk states the claim word for word)",
    )
    chunk_index: int | None = Field(
        default=None,
        description="The position in the run's context of the chunk that supports the claim",
    )


class ClaimsResult(ScoreResult):
    """A result with a verdict per claim (context recall's and faithfulness's)."""

    verdicts: tuple[ClaimVerdict, ...] = ()

    @property
    def claims(self) -> list[str]:
        return [v.claim for v in self.verdicts]

    def judgments(self) -> list[Verdict]:
        return [
            Verdict(
                key=" ".join(v.claim.split()).casefold(),
                text=v.claim,
                positive=v.supported,
                probability=v.probability,
                chunk_index=v.chunk_index,
            )
            for v in self.verdicts
        ]
