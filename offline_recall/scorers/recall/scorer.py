"""The context recall pipeline: extract claims -> judge each against the context -> score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from ..._version import __version__
from ...engines import Engine, Failed
from ...judging.judge import Assessment, Judge, Pair, Question
from ...text import pack, split_sentences
from ..base import NO_CONTEXT_REASON, Progress, ScorerRun, ScorerSetup, Status
from ..batch import isolated, stage
from ..context import Chunk, ContextOptions, as_run, ground_truth_text, resolve_context
from ..memo import Memo
from .claims import (
    claim_list_type,
    dedupe_claims,
    parse_claims,
    settle_claims,
    single_claim,
)
from .prompts import PromptSet, load_prompts, with_judge_prompt
from .result import ClaimVerdict, RecallResult
from .score import (
    NO_CLAIMS_REASON,
    NO_GROUND_TRUTH_REASON,
    expected_recall,
    explain,
    recall_score,
)

ID = "context-recall-scorer"
NAME = "Context Recall Scorer"
DESCRIPTION = (
    "How much of a ground-truth answer the retrieved context supports: the share of its "
    "atomic claims a judge finds in the context"
)
EXTRACTIONS_REMEMBERED = 1024
VERDICTS_REMEMBERED = 8192


class ClaimStore(Protocol):
    """Claims kept across runs, keyed by model fingerprint, prompt version and text."""

    def get(
        self, fingerprint: str, prompt_version: str, texts: Sequence[str]
    ) -> dict[str, list[str]]: ...

    def put(self, fingerprint: str, prompt_version: str, claims: dict[str, list[str]]) -> None: ...


@dataclass(frozen=True)
class _Item:
    """A run made ready for the model: its ground-truth pieces and context chunks."""

    pieces: list[str]
    chunks: list[Chunk]


class ContextRecallScorer:
    """Scores how much of a run's ground truth the retrieved context supports.

    Build it with `create_context_recall_scorer` (or from a run spec). `run` scores one run;
    `run_many` scores a batch, sending all extractions and then all verdicts to the engine.
    """

    id = ID
    name = NAME
    description = DESCRIPTION

    def __init__(
        self,
        engine: Engine,
        options: ContextOptions | None,
        setup: ScorerSetup,
        claim_cache: ClaimStore | None = None,
        *,
        judge: Engine | None = None,
        judge_prompt: str | None = None,
    ) -> None:
        self.engine = engine
        self.judge_engine = judge or engine
        """The engine that judges the pairs: a separate verifier, else the extraction engine."""
        self.options = options
        self.setup = setup
        self.claim_cache = claim_cache
        self.progress: Progress | None = None
        self.prompts: PromptSet = with_judge_prompt(
            load_prompts(setup.prompt_version), judge_prompt
        )
        question = Question(
            self.prompts.judge_prompt, self.prompts.judge.yes, self.prompts.judge.no
        )
        self.judge = Judge(self.judge_engine, question, setup.judge_profile)
        self._claims_type = claim_list_type(setup.max_items)
        # Identical ground truths and (context, claim) pairs are sent to the model once.
        self._extractions: Memo[str, list[str] | Failed] = Memo(EXTRACTIONS_REMEMBERED)
        self._verdicts: Memo[Pair, Assessment | Failed] = Memo(VERDICTS_REMEMBERED)

    @property
    def model_fingerprint(self) -> str:
        """The extraction model's fingerprint, and the judge's after a + when it is another."""
        extractor = self.engine.identity.fingerprint
        if self.judge_engine is self.engine:
            return extractor
        return f"{extractor}+{self.judge_engine.identity.fingerprint}"

    @property
    def threshold(self) -> float:
        """A claim is supported when its best chunk's probability reaches this."""
        return self.judge.threshold

    @property
    def scale(self) -> float:
        return self.setup.scale or 1.0

    @cached_property
    def _budgets(self) -> tuple[int, int]:
        """Tokens a context chunk and a ground-truth piece may take: the window less the
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
        """Each text's claims exactly as the scorer extracts a ground truth that fits the model
        in one piece (the prompt set's rules applied, duplicates kept)."""
        found = self._extractions.lookup(list(dict.fromkeys(texts)), self._extract)
        return [found[t] for t in texts]

    def assess(self, pairs: Sequence[Pair]) -> list[Assessment | Failed]:
        """Each (context, claim) pair judged exactly as the scorer judges it."""
        found = self._verdicts.lookup(list(dict.fromkeys(pairs)), self.judge.assess)
        return [found[pair] for pair in pairs]

    def run(self, run: ScorerRun | Mapping[str, Any]) -> RecallResult:
        """Score one run: `score` in [0, scale], a `reason`, and a verdict per claim."""
        return self.run_many([run])[0]

    def run_many(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> list[RecallResult]:
        """Score many runs in one pass over the engine; one run's failure is its own result
        (see `isolated`)."""
        return isolated(runs, self._score_batch, self.error_result)

    def error_result(self, message: str) -> RecallResult:
        """The result of a run that could not be scored: no score, the reason stated."""
        return self._result(None, f"Not scored: {message}", Status.ERROR, error=message)

    # The pipeline ---------------------------------------------------------------------

    def _score_batch(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> list[RecallResult]:
        prepared = [self._prepare(r) for r in runs]
        items = {i: p for i, p in enumerate(prepared) if isinstance(p, _Item)}

        texts = list(dict.fromkeys(piece for item in items.values() for piece in item.pieces))
        extracted = self._extractions.lookup(texts, self._extract)
        claims = {i: self._claims(item, extracted) for i, item in items.items()}

        pairs = list(
            dict.fromkeys(
                (chunk.text, claim)
                for i, item in items.items()
                if not isinstance(claims[i], Failed)
                for chunk in item.chunks
                for claim in claims[i]
            )
        )
        assessed = self._verdicts.lookup(pairs, self._judge)
        self._verdicts.forget(p for p, a in assessed.items() if isinstance(a, Failed))

        results: list[RecallResult] = []
        for i, p in enumerate(prepared):
            if isinstance(p, RecallResult):
                results.append(p)
            elif isinstance(found := claims[i], Failed):
                results.append(self.error_result(found.message))
            else:
                results.append(self._finish(found, p.chunks, assessed))
        return results

    def _extract(self, texts: list[str]) -> list[list[str] | Failed]:
        """Each text's claims: from the claim cache when it has them, else from the engine."""
        fingerprint, version = self.engine.identity.fingerprint, self.setup.prompt_version
        known: dict[str, list[str] | Failed] = {}
        if self.claim_cache is not None:
            known.update(self.claim_cache.get(fingerprint, version, texts))
        missing = [t for t in texts if t not in known]
        if missing:
            fresh = dict(zip(missing, self._extract_fresh(missing), strict=True))
            found = {t: c for t, c in fresh.items() if not isinstance(c, Failed)}
            if found and self.claim_cache is not None:
                self.claim_cache.put(fingerprint, version, found)
            known.update(fresh)
        return [known[t] for t in texts]

    def _judge(self, pairs: list[Pair]) -> list[Assessment | Failed]:
        return self.judge.assess(pairs, done=stage(self.progress, "verdicts judged", len(pairs)))

    def _extract_fresh(self, texts: list[str]) -> list[list[str] | Failed]:
        if self.prompts.extract.per_sentence:
            return self._extract_by_sentence(texts)
        limit = self.setup.max_new_tokens
        prompts = [self.prompts.extract_prompt(t) for t in texts]
        done = stage(self.progress, "ground truths extracted", len(texts))
        raw = self.engine.generate_json(prompts, self._claims_type, limit, done=done)
        rules = self.prompts.extract
        return [
            r
            if isinstance(r, Failed)
            else settle_claims(t, parse_claims(r, self._claims_type, limit), rules)
            for t, r in zip(texts, raw, strict=True)
        ]

    def _extract_by_sentence(self, texts: list[str]) -> list[list[str] | Failed]:
        """Each text's claims, sentence by sentence: every sentence of the batch is one short,
        bounded generation, sent together, so that no long answer holds the batch back; the
        rules are applied to each sentence's claims, grounded in the whole text. A sentence
        that is one claim already (`single_claim`) stands for itself, with no model call. A
        sentence the engine failed on fails its text: the sentence fallback is for what the
        model wrote, never for an engine's error."""
        rules = self.prompts.extract
        limit = rules.sentence_tokens or self.setup.max_new_tokens
        claims_type = claim_list_type(rules.sentence_claims or self.setup.max_items)
        sentences = {t: split_sentences(t) or [t] for t in texts}
        every = list(dict.fromkeys(s for t in texts for s in sentences[t]))
        single = {
            s
            for s in every
            if rules.single_claim_words and single_claim(s, rules.single_claim_words)
        }
        units = [s for s in every if s not in single]
        prompts = [self.prompts.extract_prompt(s) for s in units]
        done = stage(self.progress, "sentences extracted", len(units))
        raw = self.engine.generate_json(prompts, claims_type, limit, done=done) if units else []
        parsed = {
            s: r if isinstance(r, Failed) else parse_claims(r, claims_type, limit)
            for s, r in zip(units, raw, strict=True)
        }
        engine_failed = {s: r for s, r in zip(units, raw, strict=True) if isinstance(r, Failed)}
        out: list[list[str] | Failed] = []
        for text in texts:
            found: list[str] = []
            for sentence in sentences[text]:
                settled = (
                    [sentence]
                    if sentence in single
                    else engine_failed.get(sentence)
                    or settle_claims(sentence, parsed[sentence], rules, source=text)
                )
                if isinstance(settled, Failed):
                    out.append(settled)
                    break
                found += settled
            else:
                out.append(found)
        return out

    @staticmethod
    def _claims(item: _Item, extracted: dict[str, list[str] | Failed]) -> list[str] | Failed:
        """The item's claims over all its ground-truth pieces, duplicates removed."""
        found = [extracted[piece] for piece in item.pieces]
        for f in found:
            if isinstance(f, Failed):
                return f
        return dedupe_claims(claim for f in found for claim in f)

    def _prepare(self, raw: ScorerRun | Mapping[str, Any]) -> _Item | RecallResult:
        """Context chunks and ground-truth pieces that fit the model, or an early result."""
        try:
            run = as_run(raw)
            ground_truth = ground_truth_text(run.ground_truth)
            if ground_truth is None:
                return self._result(0.0, NO_GROUND_TRUTH_REASON, Status.NO_GROUND_TRUTH)
            context = resolve_context(self.options, run)
        except Exception as e:  # a bad run, or an extractor that raised: this run only
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")
        if not context:  # nothing to judge against: no extraction, no model call
            return self._result(0.0, NO_CONTEXT_REASON, Status.NO_CONTEXT)
        context_budget, text_budget = self._budgets
        return _Item(
            pieces=pack(ground_truth, text_budget, self.engine.count_tokens),
            chunks=[
                Chunk(chunk.index, piece)
                for chunk in context
                for piece in pack(chunk.text, context_budget, self.judge_engine.count_tokens)
            ],
        )

    def _finish(
        self, claims: list[str], chunks: list[Chunk], assessed: dict[Pair, Assessment | Failed]
    ) -> RecallResult:
        failed = [
            a for c in claims for k in chunks if isinstance(a := assessed[(k.text, c)], Failed)
        ]
        if failed:
            return self.error_result(failed[0].message)
        verdicts = [self._verdict(c, chunks, assessed) for c in claims]
        if not verdicts:
            return self._result(0.0, NO_CLAIMS_REASON, Status.NO_CLAIMS)
        score = recall_score(verdicts, self.scale)
        return self._result(
            score,
            explain(verdicts, score),
            Status.OK,
            verdicts=tuple(verdicts),
            expected=expected_recall(verdicts, self.scale),
        )

    def _verdict(
        self, claim: str, chunks: list[Chunk], assessed: dict[Pair, Assessment | Failed]
    ) -> ClaimVerdict:
        """The claim's best chunk decides: supported if its probability clears the threshold."""
        scored = [(chunk, assessed[(chunk.text, claim)]) for chunk in chunks]
        best = max(scored, key=lambda s: s[1].probability, default=None)  # type: ignore[union-attr]
        if best is None:
            return ClaimVerdict(claim=claim, supported=False, probability=0.0)
        chunk, found = best
        assert isinstance(found, Assessment)  # failures were turned into an error above
        supported = found.probability >= self.threshold
        return ClaimVerdict(
            claim=claim,
            supported=supported,
            probability=min(1.0, max(0.0, found.probability)),
            model_p_yes=found.model_p_yes,
            chunk_index=chunk.index if supported else None,
        )

    def _result(
        self,
        score: float | None,
        reason: str,
        status: Status,
        *,
        error: str | None = None,
        verdicts: tuple[ClaimVerdict, ...] = (),
        expected: float | None = None,
    ) -> RecallResult:
        return RecallResult(
            scorer=self.id,
            score=score,
            reason=reason,
            status=status,
            error=error,
            verdicts=verdicts,
            expected_recall=expected,
            model_fingerprint=self.model_fingerprint,
            prompt_version=self.setup.prompt_version,
            judge_profile=self.setup.judge_profile.digest,
            library_version=__version__,
        )
