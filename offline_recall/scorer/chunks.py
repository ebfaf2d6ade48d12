"""Each retrieved chunk judged against what its run says: the scorer that context precision
(against the question and the expected answer) and context relevance (against the question and
the response) are.

A chunk longer than the judge's window is cut into pieces, each judged, and the chunk's best
piece decides; a blank chunk is not asked about.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..judging.judge import Pair, PairVerdict
from ..text import pack
from .pipeline import Pipeline
from .results import ScoreResult

S = TypeVar("S", bound=Hashable)
"""What a chunk is judged against: the run's question and an answer, as the scorer reads it."""
R = TypeVar("R", bound=ScoreResult)


@dataclass(frozen=True)
class ChunkUnit(Generic[S]):
    """A judged unit: is this piece of a retrieved chunk relevant to the run's target?"""

    chunk_index: int
    piece: str
    target: S

    @property
    def pair(self) -> Pair[S]:
        return (self.piece, self.target)


@dataclass(frozen=True)
class ChunkItem(Generic[S]):
    """A run made ready for the model: what its chunks are judged against, its chunks, and
    each chunk's pieces that fit the model (none for a blank chunk)."""

    target: S
    chunks: list[str]
    pieces: list[list[str]]


class ChunkScorer(Pipeline[ChunkItem[S], ChunkUnit[S], R], Generic[S, R]):
    """Each chunk of a run's context -> a verdict on each of its pieces -> the scorer's result
    from each chunk's best piece (`best_pieces`)."""

    unit = "chunks"
    positive = "relevant"
    judged = "chunks judged"

    def budget(self, against: S) -> int:
        """Tokens one chunk may take beside this target, leaving room for the one-token
        verdict; a longer chunk is cut into pieces, and is as relevant as its best piece."""
        around = self.judge_engine.prompt_tokens(self.judge.question.prompt("", against))
        return max(2, self.judge_engine.identity.context_window - around - 1)

    def chunk_item(self, against: S, chunks: list[str]) -> ChunkItem[S]:
        """The run's chunks, each cut into the pieces that fit the judge beside `against`."""
        budget, count = self.budget(against), self.judge_engine.count_tokens
        pieces = [pack(c, budget, count) if c.strip() else [] for c in chunks]
        return ChunkItem(target=against, chunks=chunks, pieces=pieces)

    def units(self, item: ChunkItem[S]) -> list[ChunkUnit[S]]:
        return [
            ChunkUnit(index, piece, item.target)
            for index, pieces in enumerate(item.pieces)
            for piece in pieces
        ]

    @staticmethod
    def best_pieces(
        item: ChunkItem[S], assessed: Mapping[Pair[S], PairVerdict]
    ) -> list[PairVerdict | None]:
        """Each chunk's best-judged piece, in retrieved order; None for a blank chunk."""
        return [
            max(
                (assessed[(piece, item.target)] for piece in pieces),
                key=lambda a: a.probability,
                default=None,
            )
            for pieces in item.pieces
        ]
