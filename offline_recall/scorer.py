"""The context recall pipeline: extract claims -> judge each against the context -> score."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._version import __version__
from .backends import Backend, Failed, create_backend
from .chunking import pack
from .claim_cache import ClaimCache
from .context import ground_truth_text, resolve_context
from .errors import OfflineRecallError
from .judge import Judge, Pair
from .memo import Memo
from .models import DEFAULT_MODEL, load_manifest
from .profile import JudgeProfile, find_profile
from .score import NO_CLAIMS_REASON, NO_GROUND_TRUTH_REASON, explain, recall_score
from .types import ContextRecallOptions, RecallResult, ScorerRun, Status, Verdict

EXTRACTIONS_REMEMBERED = 1024
VERDICTS_REMEMBERED = 8192


@dataclass(frozen=True)
class _Chunk:
    index: int  # position of the context string this piece came from
    text: str


@dataclass(frozen=True)
class _Item:
    """A run made ready for the model: its ground-truth pieces and context chunks."""

    pieces: list[str]
    chunks: list[_Chunk]


def dedupe_claims(claims: Iterable[str]) -> list[str]:
    """Claims with blank ones and repeats (ignoring case and spacing) dropped, in order."""
    seen: set[str] = set()
    out: list[str] = []
    for claim in claims:
        text = " ".join(claim.split())
        key = text.casefold()
        if text and key not in seen:
            seen.add(key)
            out.append(text)
    return out


class ContextRecallScorer:
    """Scores how much of a run's ground truth the retrieved context supports.

    Build it with `create_context_recall_scorer`. `run` scores one run; `run_many` scores a
    batch, submitting all extractions and then all verdicts to the backend at once.
    """

    id = "context-recall"

    def __init__(
        self,
        backend: Backend | str,
        options: ContextRecallOptions,
        engine: str,
        claim_cache: ClaimCache | None = None,
        profile: JudgeProfile | None = None,
    ) -> None:
        self.options = options
        self.claim_cache = claim_cache
        self._model = backend
        self._engine = engine
        self._backend: Backend | None = None if isinstance(backend, str) else backend
        self._profile = profile
        self._judge: Judge | None = None
        # Identical ground truths and (context, claim) pairs are sent to the model once.
        self._extractions: Memo[str, list[str] | Failed] = Memo(EXTRACTIONS_REMEMBERED)
        self._verdicts: Memo[tuple[str, str], float] = Memo(VERDICTS_REMEMBERED)

    @property
    def backend(self) -> Backend:
        """The model backend, loaded (and its weights verified) on first use."""
        if self._backend is None:
            assert isinstance(self._model, str)
            self._backend = create_backend(self._engine, load_manifest(self._model))
        return self._backend

    @property
    def judge(self) -> Judge:
        """The attribution rule: the given profile, else the one `find_profile` picks."""
        if self._judge is None:
            info = self.backend.info
            profile = self._profile or find_profile(
                info.fingerprint, info.prompt_version, info.threshold
            )
            self._judge = Judge(self.backend, profile)
        return self._judge

    @property
    def threshold(self) -> float:
        """A claim is supported when its best chunk's `support` reaches this."""
        return self.judge.threshold

    def support(self, pairs: Sequence[Pair]) -> list[float]:
        """P(supported) for each (context, claim) pair, exactly as the scorer decides it."""
        found = self._verdicts.lookup(list(dict.fromkeys(pairs)), self.judge.support)
        return [found[pair] for pair in pairs]

    def run(self, run: ScorerRun | Mapping[str, Any]) -> RecallResult:
        """Score one run: `score` in [0, scale], a `reason`, and a verdict per claim."""
        return self.run_many([run])[0]

    def run_many(self, runs: Sequence[ScorerRun | Mapping[str, Any]]) -> list[RecallResult]:
        """Score many runs in one pass over the model; one run's failure is its own result.

        If the backend fails on the batch as a whole, the runs are retried one at a time so
        that only the run that breaks it is recorded as an error.
        """
        try:
            return self._score_batch(runs)
        except OfflineRecallError:
            raise
        except Exception:
            if len(runs) == 1:
                raise
        return [self._score_alone(r) for r in runs]

    def _score_alone(self, run: ScorerRun | Mapping[str, Any]) -> RecallResult:
        try:
            return self._score_batch([run])[0]
        except OfflineRecallError:
            raise
        except Exception as e:
            return self.error_result(f"{type(e).__name__}: {e}")

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
        support = self._verdicts.lookup(pairs, self.judge.support)

        results: list[RecallResult] = []
        for i, p in enumerate(prepared):
            if isinstance(p, RecallResult):
                results.append(p)
            elif isinstance(found := claims[i], Failed):
                results.append(self.error_result(found.message))
            else:
                results.append(self._finish([self._verdict(c, p.chunks, support) for c in found]))
        return results

    def _extract(self, texts: list[str]) -> list[list[str] | Failed]:
        """Each text's claims: from the claim cache when it has them, else from the model."""
        if self.claim_cache is None:
            return self.backend.extract_claims(texts)
        info = self.backend.info
        known: dict[str, list[str] | Failed] = dict(
            self.claim_cache.get(info.fingerprint, info.prompt_version, texts)
        )
        missing = [t for t in texts if t not in known]
        if missing:
            fresh = dict(zip(missing, self.backend.extract_claims(missing), strict=True))
            found = {t: c for t, c in fresh.items() if not isinstance(c, Failed)}
            if found:
                self.claim_cache.put(info.fingerprint, info.prompt_version, found)
            known.update(fresh)
        return [known[t] for t in texts]

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
            run = raw if isinstance(raw, ScorerRun) else ScorerRun.model_validate(raw)
            ground_truth = ground_truth_text(run.ground_truth)
            if ground_truth is None:
                return self._result(0.0, NO_GROUND_TRUTH_REASON, Status.NO_GROUND_TRUTH)
            context = resolve_context(self.options, run)
        except Exception as e:  # a bad run, or an extractor that raised: this run only
            return self.error_result(f"{type(e).__name__}: {' '.join(str(e).split())}")
        info = self.backend.info
        count = self.backend.count_tokens
        return _Item(
            pieces=pack(ground_truth, info.text_budget, count),
            chunks=[
                _Chunk(i, piece)
                for i, text in enumerate(context)
                for piece in pack(text, info.context_budget, count)
            ],
        )

    def _verdict(
        self, claim: str, chunks: list[_Chunk], support: dict[tuple[str, str], float]
    ) -> Verdict:
        """The claim's best chunk decides: supported if its probability clears the threshold."""
        best = max(chunks, key=lambda c: support[(c.text, claim)], default=None)
        p = support[(best.text, claim)] if best is not None else 0.0
        supported = best is not None and p >= self.threshold
        return Verdict(
            claim=claim,
            supported=supported,
            p_yes=min(1.0, max(0.0, p)),
            chunk_index=best.index if supported and best is not None else None,
        )

    def _finish(self, verdicts: list[Verdict]) -> RecallResult:
        if not verdicts:
            return self._result(0.0, NO_CLAIMS_REASON, Status.NO_CLAIMS)
        score = recall_score(verdicts, self.options.effective_scale)
        return self._result(score, explain(verdicts, score), Status.OK, verdicts=tuple(verdicts))

    def _result(
        self,
        score: float | None,
        reason: str,
        status: Status,
        *,
        error: str | None = None,
        verdicts: tuple[Verdict, ...] = (),
    ) -> RecallResult:
        info = self.backend.info
        return RecallResult(
            score=score,
            reason=reason,
            status=status,
            error=error,
            verdicts=verdicts,
            model_fingerprint=info.fingerprint,
            prompt_version=info.prompt_version,
            library_version=__version__,
        )


def create_context_recall_scorer(
    model: str | Backend = DEFAULT_MODEL,
    options: ContextRecallOptions | None = None,
    *,
    backend: str = "transformers",
    claim_cache: ClaimCache | None = None,
    profile: JudgeProfile | None = None,
) -> ContextRecallScorer:
    """A context recall scorer on a local, pinned model.

    `model` is a bundled model's name, a manifest's path, or a ready `Backend`; `backend`
    names the engine that runs a named model. `options` says where the context comes from
    (it is required: construction fails without `context` or `context_extractor`).
    `claim_cache`, if given, keeps extracted claims across runs. `profile` overrides the
    judge profile that `find_profile` would pick for the model.
    """
    if options is None:
        options = ContextRecallOptions()  # raises: a context source is required
    return ContextRecallScorer(model, options, backend, claim_cache, profile)
