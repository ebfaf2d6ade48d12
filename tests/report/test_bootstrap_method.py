"""The interval of a mean is the one its label names: a percentile bootstrap of that many
resamples drawn with that seed, at that level (by default 10,000, seed 0, 95%)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import bootstrap

from offline_recall.report.stats import bootstrap_mean

VALUES = [(math.sin(i * 2.7) + 1) / 2 for i in range(40)]


@pytest.mark.parametrize(
    ("given", "level", "resamples", "seed", "method"),
    [
        ({}, 0.95, 10_000, 0, "percentile bootstrap, 10,000 resamples, seed 0"),
        (
            {"level": 0.9, "resamples": 2_000, "seed": 3},
            0.9,
            2_000,
            3,
            "percentile bootstrap, 2,000 resamples, seed 3",
        ),
    ],
    ids=["defaults", "given"],
)
def test_the_interval_is_the_percentile_bootstrap_its_label_names(
    given: dict[str, Any], level: float, resamples: int, seed: int, method: str
) -> None:
    interval = bootstrap_mean(VALUES, **given)
    assert interval is not None
    assert (interval.level, interval.method) == (level, method)
    named = bootstrap(
        (np.asarray(VALUES),),
        np.mean,
        confidence_level=level,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    assert (interval.low, interval.high) == pytest.approx((named.low, named.high), abs=1e-12)


def test_constant_values_are_their_own_interval_at_the_level_asked() -> None:
    interval = bootstrap_mean([0.25, 0.25, 0.25], level=0.9)
    assert interval is not None
    assert (interval.low, interval.high, interval.level) == (0.25, 0.25, 0.9)
