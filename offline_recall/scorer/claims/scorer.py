"""Claims of a text, each judged against the context: the scorer that context recall (the
ground truth's claims) and faithfulness (the output's claims) are.

A scorer on it declares which text its claims come from (`claimed_text`) and how its reason
names them (`counted`, `found_label`, `missing_label`, `no_claims_reason`); its result is the
supported share (`conclude`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from ...engines import Failed
from ...judging.judge import Pair, PairVerdict, Question
from ...text import pack
from ..inputs import Chunk, resolve_context
from ..pipeline import Pipeline
from ..results import NO_CONTEXT_REASON, ScoreResult, ScorerInput, Status
from . import prompts as prompt_sets
from .extraction import ClaimExtractor
from .prompts import PromptSet, load_prompts, with_judge_prompt
from .result import ClaimVerdict
from .score import claim_score, explain_claims


@dataclass(frozen=True)
class ClaimUnit:
    """A judged unit: does this context chunk support this claim?"""

    chunk: Chunk
    claim: str

    @property
    def pair(self) -> Pair[str]:
        return (self.chunk.text, self.claim)


@dataclass(frozen=True)
class ClaimItem:
    """A run made ready for the model: the pieces of its text, its context chunks, and (after
    extraction) the text's claims."""

    pieces: list[str]
    chunks: list[Chunk]
    claims: list[str] = field(default_factory=list)


R = TypeVar("R", bound=ScoreResult)


class ClaimScorer(Pipeline[ClaimItem, ClaimUnit, R], Generic[R]):
    """Claims of a run's text -> a verdict per claim at its best chunk -> the supported share.

    Its prompts are the claim prompt sets (`claims.prompts`), a model's own judge question in
    place of theirs when the judging model's manifest names one. `extract` and `assess` are the
    scorer's own stages on their own, as it runs them.
    """

    unit = "claims"
    positive = "supported"
    prompt_package = prompt_sets.__name__
    separate_judge = True
    follows_manifest = True

    noun: ClassVar[str] = "texts"
    """What the claimed texts are called in progress: "ground truths"."""
    counted: ClassVar[str] = "claims"
    """What the reason counts: "ground-truth claims"."""
    found_label: ClassVar[str] = "Found"
    """What heads the reason's list of supported claims."""
    missing_label: ClassVar[str] = "Missing"
    """What heads the reason's list of the other claims."""
    no_claims_reason: ClassVar[str]
    """The reason when the text yielded no claim."""

    @cached_property
    def extractor(self) -> ClaimExtractor:
        """The claims' generation stage: on the scorer's engine, with the claim prompt set of
        the setup's version (asking the judging model's own question, `judge_prompt`, when it
        has one), keeping claims in the scorer's claim cache."""
        prompts = with_judge_prompt(load_prompts(self.setup.prompt_version), self.judge_prompt)
        return ClaimExtractor(self.engine, prompts, self.setup, self.claim_cache, noun=self.noun)

    @property
    def prompts(self) -> PromptSet:
        """The prompt set: the extraction's, and the judge's question as built."""
        return self.extractor.prompts

    def question(self) -> Question[str]:
        return Question(self.prompts.judge_prompt, self.prompts.judge.yes, self.prompts.judge.no)

    # What a scorer on claims declares -----------------------------------------------------

    def claimed_text(self, run: ScorerInput) -> str | R:
        """The text whose claims are judged, or the run's result when it has none."""
        raise NotImplementedError

    def no_claims(self) -> R:
        """The result when the text yielded no claim."""
        return self.result(0.0, self.no_claims_reason, Status.NO_CLAIMS)

    def conclude(self, verdicts: list[ClaimVerdict], **fields: Any) -> R:
        """The result from the claims' verdicts (at least one): the supported share, and a
        reason naming the claims found and the others; `fields` are the scorer's own."""
        score = claim_score(verdicts, self.scale)
        reason = explain_claims(
            verdicts,
            score,
            claims=self.counted,
            found_label=self.found_label,
            missing_label=self.missing_label,
        )
        return self.result(score, reason, Status.OK, verdicts=tuple(verdicts), **fields)

    # The pipeline's parts -----------------------------------------------------------------

    @cached_property
    def _budgets(self) -> tuple[int, int]:
        """Tokens a context chunk and a piece of the text may take: the window less the
        prompt around them and room for the answer (a claim is at most one answer long)."""
        reserve = self.setup.max_new_tokens
        extract = self.engine.prompt_tokens(self.prompts.extract_prompt(""))
        text_budget = max(2, self.engine.identity.context_window - extract - reserve)
        window = self.judge_engine.identity.context_window
        judge = self.judge_engine.prompt_tokens(self.prompts.judge_prompt("", ""))
        if self.judge_engine is not self.engine:
            # A verifier's window may be a classifier's few hundred tokens: a claim is given
            # at most a quarter of it.
            reserve = min(reserve, window // 4)
        return max(2, window - judge - reserve), text_budget

    @property
    def context_budget(self) -> int:
        """Tokens one context chunk may take; a longer context is cut into pieces."""
        return self._budgets[0]

    def extract(self, texts: Sequence[str]) -> list[list[str] | Failed]:
        """Each text's claims exactly as the scorer extracts a text that fits the model in
        one piece (the prompt set's rules applied, duplicates kept)."""
        return self.extractor.extract(texts, progress=self.progress)

    def prepare(self, run: ScorerInput) -> ClaimItem | R:
        text = self.claimed_text(run)
        if not isinstance(text, str):
            return text
        context = resolve_context(self.options, run)
        if not context:  # nothing to judge against: no extraction, no model call
            return self.result(0.0, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        context_budget, text_budget = self._budgets
        return ClaimItem(
            pieces=pack(text, text_budget, self.engine.count_tokens),
            chunks=[
                Chunk(chunk.index, piece)
                for chunk in context
                for piece in pack(chunk.text, context_budget, self.judge_engine.count_tokens)
            ],
        )

    def generate(self, items: Mapping[int, ClaimItem]) -> dict[int, ClaimItem | Failed]:
        texts = list(dict.fromkeys(piece for item in items.values() for piece in item.pieces))
        extracted = self.extractor.lookup(texts, progress=self.batch_progress)
        out: dict[int, ClaimItem | Failed] = {}
        for i, item in items.items():
            claims = self.extractor.claims(item.pieces, extracted)
            out[i] = claims if isinstance(claims, Failed) else replace(item, claims=claims)
        return out

    def units(self, item: ClaimItem) -> list[ClaimUnit]:
        return [ClaimUnit(chunk, claim) for chunk in item.chunks for claim in item.claims]

    def aggregate(self, item: ClaimItem, assessed: Mapping[Pair[str], PairVerdict]) -> R:
        verdicts = [self._verdict(c, item.chunks, assessed) for c in item.claims]
        return self.conclude(verdicts) if verdicts else self.no_claims()

    def _verdict(
        self, claim: str, chunks: list[Chunk], assessed: Mapping[Pair[str], PairVerdict]
    ) -> ClaimVerdict:
        """The claim's best chunk decides: supported if its probability clears the threshold."""
        scored = [(chunk, assessed[(chunk.text, claim)]) for chunk in chunks]
        best = max(scored, key=lambda s: s[1].probability, default=None)
        if best is None:
            return ClaimVerdict(claim=claim, supported=False, probability=0.0)
        chunk, found = best
        supported = found.probability >= self.threshold
        return ClaimVerdict(
            claim=claim,
            supported=supported,
            probability=min(1.0, max(0.0, found.probability)),
            model_p_yes=found.model_p_yes,
            chunk_index=chunk.index if supported else None,
        )
