"""What the benchmarks ask of the context recall scorer besides whole runs.

- the scorer of a built run spec, typed as the context recall scorer;
- a text's claims alone, as the scorer extracts them (its prompt set's rules applied, repeats
  dropped);
- the scorer's own probability for (evidence, claim) pairs, judged exactly as it judges them;
- the model's own P(yes) for (context, claim) pairs: the scorer's yes/no question about the
  whole context, with no evidence selection, no lexical signals and no judge profile.
"""

from __future__ import annotations

from collections.abc import Sequence

from offline_recall import Engine
from offline_recall.engines import Failed
from offline_recall.judging.judge import Question
from offline_recall.judging.judge import model_p_yes as asked_p_yes
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.session import Scoring
from offline_recall.scorer.claims.rules import dedupe_claims

Pair = tuple[str, str]
"""(context, claim)"""


def recall_scorer(scoring: Scoring) -> ContextRecallScorer:
    """The context recall scorer of a built run spec."""
    scorer = scoring.scorers[ContextRecallScorer.id]
    assert isinstance(scorer, ContextRecallScorer)
    return scorer


def extract_claims(scorer: ContextRecallScorer, texts: Sequence[str]) -> list[list[str] | None]:
    """Each text's claims as `scorer` extracts them, in one pass; None where extraction failed."""
    return [
        None if isinstance(found, Failed) else dedupe_claims(found)
        for found in scorer.extract(texts)
    ]


def judged(scorer: ContextRecallScorer, pairs: Sequence[Pair]) -> list[float | None]:
    """The scorer's probability for each pair, as its judge decides it; None where it failed."""
    return [None if isinstance(a, Failed) else a.probability for a in scorer.assess(pairs)]


def model_p_yes(engine: Engine, question: Question, pairs: Sequence[Pair]) -> list[float | None]:
    """The model's P(yes) for each pair, renormalised over yes and no; None where it failed."""
    return [None if isinstance(p, Failed) else p for p in asked_p_yes(engine, question, pairs)]
