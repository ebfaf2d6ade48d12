"""Pure parts of the quality benchmark: content words, the claim matcher, and the metrics.

Every metric returns None when it is undefined on the rows it is given (one class only, a
constant series, no rows), never NaN. Rows a variant failed on are passed in as None and left
out; the caller counts them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from offline_recall.judging.signals import STOP_WORDS, word_overlap
from offline_recall.text import split_sentences

_WORD = re.compile(r"\w+")

MATCH_THRESHOLD = 0.5
"""A claim matches a human fact when their content-word F1 is at least this."""


def content_words(text: str) -> list[str]:
    """Lower-cased word tokens of `text`, stop words left out (as the overlap baseline reads
    them)."""
    return [w for w in _WORD.findall(text.casefold()) if w not in STOP_WORDS]


def sentences(text: str) -> list[str]:
    """The baseline's claims: the text's sentences."""
    return split_sentences(text)


def overlap_recall(ground_truth: str, contexts: Sequence[str], threshold: float) -> float:
    """The baseline end to end: the share of the ground truth's sentences whose word overlap
    with their best context reaches `threshold` (0 for a text without sentences)."""
    claims = sentences(ground_truth)
    if not claims:
        return 0.0
    best = [max((word_overlap(c, s) for c in contexts), default=0.0) for s in claims]
    return sum(b >= threshold for b in best) / len(best)


# The claim matcher ------------------------------------------------------------------------


def word_f1(a: str, b: str) -> float:
    """F1 of the two texts' content-word multisets (0 when either has none)."""
    wa, wb = Counter(content_words(a)), Counter(content_words(b))
    common = sum((wa & wb).values())
    if common == 0:
        return 0.0
    precision, recall = common / sum(wa.values()), common / sum(wb.values())
    return 2 * precision * recall / (precision + recall)


def match_claims(
    extracted: Sequence[str], gold: Sequence[str], threshold: float = MATCH_THRESHOLD
) -> int:
    """How many extracted claims match a human fact, one to one.

    Greedy on content-word F1: the best-scoring pair first (ties in input order), each claim
    and each fact used at most once, pairs below `threshold` never matched.
    """
    scored = sorted(
        ((-word_f1(e, g), i, j) for i, e in enumerate(extracted) for j, g in enumerate(gold)),
    )
    used_e: set[int] = set()
    used_g: set[int] = set()
    for neg, i, j in scored:
        if -neg < threshold:
            break
        if i not in used_e and j not in used_g:
            used_e.add(i)
            used_g.add(j)
    return len(used_e)


@dataclass
class ExtractionTally:
    """Claims extracted, human facts, and matches, summed over texts (micro averages)."""

    extracted: int = 0
    gold: int = 0
    matched: int = 0

    def add(self, extracted: Sequence[str], gold: Sequence[str]) -> None:
        self.extracted += len(extracted)
        self.gold += len(gold)
        self.matched += match_claims(extracted, gold)

    def scores(self) -> dict[str, float | None]:
        p = self.matched / self.extracted if self.extracted else None
        r = self.matched / self.gold if self.gold else None
        f1 = 2 * p * r / (p + r) if p is not None and r is not None and p + r > 0 else None
        if p is not None and r is not None and p + r == 0:
            f1 = 0.0
        ratio = self.extracted / self.gold if self.gold else None
        return {"precision": p, "recall": r, "F1": f1, "count ratio": ratio}


# Metrics ----------------------------------------------------------------------------------


def kept(*columns: Sequence[float | None]) -> list[list[float]]:
    """The columns restricted to the rows where none of them is None."""
    rows = [r for r in zip(*columns, strict=True) if all(v is not None for v in r)]
    return [[float(r[k]) for r in rows] for k in range(len(columns))]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def auroc(labels: Sequence[float | None], scores: Sequence[float | None]) -> float | None:
    """Area under the ROC curve of `scores` for the positive labels (1); None if one class."""
    y, s = kept(labels, scores)
    if len(set(y)) < 2:
        return None
    from sklearn.metrics import roc_auc_score

    return _finite(float(roc_auc_score(y, s)))


def balanced_accuracy(
    labels: Sequence[float | None], scores: Sequence[float | None], threshold: float
) -> float | None:
    """Balanced accuracy of `score >= threshold` as the positive decision; None if one class."""
    y, s = kept(labels, scores)
    if len(set(y)) < 2:
        return None
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(y, [v >= threshold for v in s]))


def tune_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold with the best balanced accuracy over the observed scores (lowest on ties)."""
    best, best_t = -1.0, 0.5
    for t in sorted(set(scores)):
        value = balanced_accuracy(list(labels), list(scores), t)
        if value is not None and value > best:
            best, best_t = value, t
    return best_t


def max_or_none(values: Sequence[float | None]) -> float | None:
    """The largest value, or None if any of them failed (None)."""
    return None if any(v is None for v in values) else max(v for v in values if v is not None)


def mean(values: Sequence[float | None]) -> float | None:
    (v,) = kept(values)
    return sum(v) / len(v) if v else None


def share_at_least(values: Sequence[float | None], threshold: float) -> float | None:
    (v,) = kept(values)
    return sum(x >= threshold for x in v) / len(v) if v else None


def correlations(
    targets: Sequence[float | None], scores: Sequence[float | None]
) -> dict[str, float | None]:
    """Pearson, Spearman and Kendall correlation and mean absolute error of scores vs targets."""
    t, s = kept(targets, scores)
    out: dict[str, float | None] = {"Pearson": None, "Spearman": None, "Kendall": None}
    if len(t) >= 2 and len(set(t)) > 1 and len(set(s)) > 1:
        from scipy.stats import kendalltau, pearsonr, spearmanr

        out["Pearson"] = _finite(float(pearsonr(t, s).statistic))
        out["Spearman"] = _finite(float(spearmanr(t, s).statistic))
        out["Kendall"] = _finite(float(kendalltau(t, s).statistic))
    out["MAE"] = sum(abs(a - b) for a, b in zip(t, s, strict=True)) / len(t) if t else None
    return out


def spearman(targets: Sequence[float | None], scores: Sequence[float | None]) -> float | None:
    return correlations(targets, scores)["Spearman"]


def spearman_interval(
    targets: Sequence[float | None], scores: Sequence[float | None], resamples: int = 1000
) -> str | None:
    """The bootstrap 95% interval (percentile, rows resampled, seed 0) of the Spearman
    correlation of scores vs targets."""
    t, s = kept(targets, scores)
    if len(t) < 3 or len(set(t)) < 2 or len(set(s)) < 2:
        return None
    from scipy.stats import spearmanr

    def statistic(a: Sequence[float], b: Sequence[float]) -> float:
        if len(set(a)) < 2 or len(set(b)) < 2:
            return 0.0  # a resample of one distinct value has no order
        return float(spearmanr(a, b).statistic)

    return _interval(statistic, t, s, resamples)


def auroc_interval(
    labels: Sequence[float | None], scores: Sequence[float | None], resamples: int = 1000
) -> str | None:
    """The bootstrap 95% interval (percentile, claims resampled, seed 0) of the AUROC of
    scores for labels."""
    y, s = kept(labels, scores)
    if len(set(y)) < 2:
        return None

    def statistic(a: Sequence[float], b: Sequence[float]) -> float:
        found = auroc(a, b)
        return 0.5 if found is None else found  # a resample of one label ranks nothing

    return _interval(statistic, y, s, resamples)


def _interval(
    statistic: Callable[[Sequence[float], Sequence[float]], float],
    a: Sequence[float],
    b: Sequence[float],
    resamples: int,
) -> str:
    """The bootstrap 95% interval of a paired statistic (percentile, pairs resampled, seed 0)."""
    import numpy as np
    from scipy.stats import bootstrap

    found = bootstrap(
        (np.array(a), np.array(b)),
        statistic,
        paired=True,
        vectorized=False,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    low, high = found.confidence_interval
    return f"[{low:.3f}, {high:.3f}]"
