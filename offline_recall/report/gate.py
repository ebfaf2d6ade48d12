"""The regression gate of `compare --fail-if-worse`: a run worse than the baseline by more than
a margin, with the interval of the difference excluding 0."""

from __future__ import annotations

from .comparison import Comparison, OneScorer
from .comparison_text import signed
from .stats import Interval


class Regression(OneScorer):
    """A run whose mean is below the baseline's by more than the margin, significantly."""

    run: str
    baseline: str
    diff: float
    """The run's mean paired difference against the baseline (negative: worse)."""
    interval: Interval
    margin: float

    def line(self) -> str:
        """The one line `compare` prints for it."""
        return (
            f"{self.run}: {self.measure} is {-self.diff:.4f} below {self.baseline}'s "
            f"(more than the margin {self.margin:g}): difference {signed(self.diff)}, "
            f"{self.interval.level:.0%} CI [{signed(self.interval.low)}, "
            f"{signed(self.interval.high)}]"
        )


def regression(c: Comparison, margin: float) -> Regression | None:
    """Run B of `c` (A being the baseline) as a regression, or None when it is not one: its
    mean difference is not below -`margin`, or the interval of the difference reaches 0."""
    if c.diff is None or c.interval is None:
        return None
    if c.diff >= -margin or c.interval.high >= 0:
        return None
    return Regression(
        scorer=c.scorer,
        run=c.b.name,
        baseline=c.a.name,
        diff=c.diff,
        interval=c.interval,
        margin=margin,
    )
