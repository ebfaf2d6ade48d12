"""Statistics of scores: a seeded bootstrap interval for a mean, the sign test, and Holm's
adjustment of p-values for several comparisons."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

LEVEL = 0.95
RESAMPLES = 10_000
SEED = 0
BATCH_VALUES = 2_000_000
"""Resampled values drawn at once: memory stays near 32 MB however many scores there are (the
batch does not change the interval: the draws are the same)."""


class Interval(BaseModel):
    """A confidence interval for a mean, and how it was computed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: float
    high: float
    level: float = LEVEL
    method: str = f"percentile bootstrap, {RESAMPLES:,} resamples, seed {SEED}"


def bootstrap_mean(
    values: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """The percentile bootstrap interval of the mean of `values`; None for fewer than two.

    Resampling is seeded, so the same values give the same interval on every run.
    """
    if len(values) < 2:
        return None
    import numpy as np
    from scipy.stats import bootstrap

    data = np.asarray(values, dtype=float)
    if float(np.ptp(data)) == 0.0:
        return Interval(low=float(data[0]), high=float(data[0]), level=level)
    found = bootstrap(
        (data,),
        np.mean,
        confidence_level=level,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
        batch=max(1, min(1000, BATCH_VALUES // len(data))),
    ).confidence_interval
    return Interval(
        low=float(found.low),
        high=float(found.high),
        level=level,
        method=f"percentile bootstrap, {resamples:,} resamples, seed {seed}",
    )


def sign_test(wins: int, losses: int) -> float:
    """Two-sided sign test p-value of `wins` against `losses` (ties left out); 1 when none."""
    if wins + losses == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of `p_values` for their number of comparisons, in their order.

    The i-th smallest p (from 0) is multiplied by (m - i), each kept at least as large as the
    one before it and at most 1: it controls the family-wise error rate at any level.
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
