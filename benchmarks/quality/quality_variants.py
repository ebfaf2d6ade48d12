"""The columns of the quality benchmark: baselines, the model's P(yes), one JSON call, the
shipped scorer (its decided score and its expected recall), and the shipped judge on given
claims (human atomic facts, or the ground truth's sentences), which separates the judge's
errors from the extractor's.

Each variant says how it scores a (context, claim) pair, a ground truth end to end against
its contexts, and how it splits a text into claims. See `quality.py` for what each one is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks.quality.quality_judges import (
    OneCall,
    attributed_share,
    expected,
    max_over_pieces,
    recall_of_claims,
    run_shipped,
)
from benchmarks.quality.quality_metrics import overlap_recall, sentences
from benchmarks.quality.recall import Pair, extract_claims, judged, model_p_yes, recall_scorer
from offline_recall import Engine
from offline_recall.engines import Failed
from offline_recall.judging.signals import word_overlap
from offline_recall.runs.resolve import resolve_recorded
from offline_recall.runs.session import Scoring
from offline_recall.runs.spec import RunSpec

Item = tuple[str, Sequence[str]]  # (ground truth, contexts)


@dataclass
class Variant:
    """One column: how it scores a (context, claim) pair, an item end to end, and extracts;
    a column that shares another's pair scores or claims says so with None."""

    name: str
    threshold: float
    pairs: Callable[[Sequence[Pair]], list[float | None]] | None
    recall: Callable[[Sequence[Item]], list[float | None]]
    extract: Callable[[Sequence[str]], list[list[str] | None]] | None
    same_pairs: str | None = None
    """The column whose pair scores this one's are, where it has none of its own."""
    same_claims: str | None = None
    """The column whose extracted claims this one's are, where it has none of its own."""


def overlap_variant(threshold: float) -> Variant:
    return Variant(
        name="word overlap",
        threshold=threshold,
        pairs=lambda pairs: [word_overlap(c, q) for c, q in pairs],
        recall=lambda items: [overlap_recall(g, c, threshold) for g, c in items],
        extract=lambda texts: [sentences(t) for t in texts],
    )


def sentence_overlap(ground_truth: str, contexts: Sequence[str]) -> float:
    """The no-model baseline end to end: the mean, over the ground truth's sentences, of the
    share of each sentence's content words found in its best context (0 without sentences)."""
    found = [
        max((word_overlap(c, s) for c in contexts), default=0.0) for s in sentences(ground_truth)
    ]
    return sum(found) / len(found) if found else 0.0


def sentence_overlap_variant(threshold: float) -> Variant:
    return Variant(
        name="sentence overlap",
        threshold=threshold,
        pairs=None,
        recall=lambda items: [sentence_overlap(g, c) for g, c in items],
        extract=None,
        same_pairs="word overlap",
        same_claims="word overlap",
    )


def given_claims_variants(
    spec: RunSpec, engine: Engine, facts: dict[str, list[str]]
) -> list[Variant]:
    """The shipped judge on claims it is given, decided and expected: the human atomic facts
    (RoSE; other sets have none), and the ground truth's sentences."""
    scorer = recall_scorer(Scoring.on(resolve_recorded(spec), engine))

    def pairs(ps: Sequence[Pair]) -> list[float | None]:
        return judged(scorer, ps)

    def claims_of(
        source: Callable[[str], list[str] | None],
    ) -> Callable[[Sequence[Item]], list[list[str] | None]]:
        return lambda items: [source(g) for g, _ in items]

    def decided(
        source: Callable[[str], list[str] | None],
    ) -> Callable[[Sequence[Item]], list[float | None]]:
        def run(items: Sequence[Item]) -> list[float | None]:
            return recall_of_claims(
                pairs, scorer, claims_of(source)(items), [c for _, c in items], scorer.threshold
            )

        return run

    def expects(
        source: Callable[[str], list[str] | None],
    ) -> Callable[[Sequence[Item]], list[float | None]]:
        def run(items: Sequence[Item]) -> list[float | None]:
            return expected(pairs, scorer, claims_of(source)(items), [c for _, c in items])

        return run

    human: Callable[[str], list[str] | None] = facts.get
    t = scorer.threshold
    return [
        Variant("human facts, shipped judge", t, None, decided(human), None, "shipped"),
        Variant("human facts, expected", t, None, expects(human), None, "shipped"),
        Variant("sentences, shipped judge", t, None, decided(sentences), None, "shipped"),
        Variant("sentences, expected", t, None, expects(sentences), None, "shipped"),
    ]


def model_variants(spec: RunSpec, engine: Engine) -> list[Variant]:
    """The shipped scorer, P(yes) and one JSON call (vLLM only), sharing one engine.

    The scorers come from the run spec, as `offline-recall score` builds them; claims for the
    extraction section come from a scorer of their own, so that they are timed on their own
    (a scorer remembers the claims it extracted).
    """
    scorer = recall_scorer(Scoring.on(resolve_recorded(spec), engine))
    extractor = recall_scorer(Scoring.on(resolve_recorded(spec), engine))
    question = scorer.judge.question
    # the manifest's plain threshold
    p_yes_threshold = resolve_recorded(spec).model.manifest.threshold
    claims_of: dict[str, list[str] | None] = {}  # ground truth -> the shipped scorer's claims

    def shipped_pairs(pairs: Sequence[Pair]) -> list[float | None]:
        return judged(scorer, pairs)

    def p_yes_pairs(pairs: Sequence[Pair]) -> list[float | None]:
        return model_p_yes(engine, question, pairs)

    expected_of: dict[Item, float | None] = {}

    def shipped_recall(items: Sequence[Item]) -> list[float | None]:
        results = run_shipped(scorer, items)
        for (ground_truth, contexts), r in zip(items, results, strict=True):
            claims_of[ground_truth] = None if r.score is None else list(r.claims)
            expected_of[(ground_truth, tuple(contexts))] = (
                r.expected_recall if r.expected_recall is not None else r.score
            )
        return [r.score for r in results]

    def expected_recall(items: Sequence[Item]) -> list[float | None]:
        keys = [(g, tuple(c)) for g, c in items]
        missing = [i for i, k in zip(items, keys, strict=True) if k not in expected_of]
        if missing:
            shipped_recall(missing)
        return [expected_of[k] for k in keys]

    def p_yes_recall(items: Sequence[Item]) -> list[float | None]:
        missing = [i for i in items if i[0] not in claims_of]
        if missing:
            shipped_recall(missing)
        return recall_of_claims(
            p_yes_pairs,
            scorer,
            [claims_of[g] for g, _ in items],
            [c for _, c in items],
            p_yes_threshold,
        )

    shipped = Variant(
        name="shipped",
        threshold=scorer.threshold,
        pairs=lambda pairs: max_over_pieces(shipped_pairs, scorer, pairs),
        recall=shipped_recall,
        extract=lambda texts: extract_claims(extractor, texts),
    )
    shipped_expected = Variant(
        name="shipped, expected recall",
        threshold=scorer.threshold,
        pairs=None,
        recall=expected_recall,
        extract=None,
        same_pairs="shipped",
        same_claims="shipped",
    )
    p_yes = Variant(
        name=f"model P(yes), prompt {scorer.setup.prompt_version}",
        threshold=p_yes_threshold,
        pairs=lambda pairs: max_over_pieces(p_yes_pairs, scorer, pairs),
        recall=p_yes_recall,
        extract=None,
        same_claims="shipped",
    )
    # vLLM only, as before: one long generation per item, which the transformers engine runs
    # one prompt at a time.
    if engine.identity.engine != "vllm":
        return [shipped, shipped_expected, p_yes]
    one_call = OneCall(engine, scorer.setup.max_items, scorer.setup.max_new_tokens)
    memo: dict[tuple[str, tuple[str, ...]], float | None] = {}

    def one_call_recall(items: Sequence[Item]) -> list[float | None]:
        keys = [(g, tuple(c)) for g, c in items]
        todo = list(dict.fromkeys(k for k in keys if k not in memo))
        for key, found in zip(todo, one_call.run(todo), strict=True):
            memo[key] = attributed_share(found)
        return [memo[k] for k in keys]

    def one_call_extract(texts: Sequence[str]) -> list[list[str] | None]:
        found = one_call.run([(t, [t]) for t in texts])
        return [None if isinstance(f, Failed) else [s.statement for s in f] for f in found]

    return [
        shipped,
        shipped_expected,
        p_yes,
        Variant(
            name="one JSON call",
            threshold=1.0,
            pairs=lambda pairs: one_call_recall([(q, [c]) for c, q in pairs]),
            recall=one_call_recall,
            extract=one_call_extract,
        ),
    ]
