"""The peers benchmark's tables and the targets, from each system's run."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from statistics import fmean

from local_server import Usage

from benchmarks.quality.quality_metrics import auroc, correlations

OURS = "offline-recall"


@dataclass(frozen=True)
class Run:
    """One system's scores on one task's items, and what the model did for them."""

    name: str
    seconds: float
    scores: list[float | None]  # None: the row failed, came back NaN or unparseable
    # Per item, each chunk's verdict (a probability, or 1/0); None where the system gave none.
    verdicts: list[list[float] | None]
    usage: Usage
    errors: list[str]

    @property
    def rate(self) -> float:
        return len(self.scores) / self.seconds

    @property
    def failed(self) -> int:
        return sum(s is None for s in self.scores)

    @property
    def ours(self) -> bool:
        return self.name.startswith(OURS)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _usage(run: Run) -> str:
    n, u = len(run.scores), run.usage
    hit, queries = u.hit_rate, u.cache_queries
    cache = "n/a" if hit is None or queries is None else f"{hit:.0%} of {queries / n:.0f}"
    return (
        f"{u.calls / n:.2f} | {u.prompt / n:.0f} | {u.completion / n:.0f} | {cache} | "
        f"{run.failed} / {n}"
    )


HEAD = (
    "| system | wall s | items/s | model calls / item | prompt tok / item | completion tok / item "
    "| prefix cache: hits of prompt tok / item | failed rows | mean score "
)


def recall_table(runs: list[Run], human: list[float | None]) -> list[str]:
    lines = [
        HEAD + "| Pearson r vs human_recall (n) | Spearman |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        c = correlations(human, run.scores)
        ok = [s for s in run.scores if s is not None]
        lines.append(
            f"| {run.name} | {run.seconds:.1f} | {run.rate:.3f} | {_usage(run)} | "
            f"{_number(fmean(ok) if ok else None)} | {_number(c['Pearson'])} ({len(ok)}) | "
            f"{_number(c['Spearman'])} |"
        )
    return lines


def chunk_auroc(run: Run, relevant: list[list[bool]]) -> tuple[float | None, int]:
    """AUROC of the chunk verdicts against the known relevance, over the items that have them."""
    labels: list[float | None] = []
    scores: list[float | None] = []
    for found, truth in zip(run.verdicts, relevant, strict=True):
        if found is not None and len(found) == len(truth):
            labels.extend(float(t) for t in truth)
            scores.extend(found)
    return (auroc(labels, scores) if labels else None), len(labels)


def precision_table(runs: list[Run], true_ap: list[float], relevant: list[list[bool]]) -> list[str]:
    lines = [
        HEAD + "| Pearson r vs true AP (n) | Spearman | mean abs error | chunk AUROC (chunks) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    truth: list[float | None] = list(true_ap)
    for run in runs:
        c = correlations(truth, run.scores)
        ok = [s for s in run.scores if s is not None]
        area, chunks = chunk_auroc(run, relevant)
        lines.append(
            f"| {run.name} | {run.seconds:.1f} | {run.rate:.3f} | {_usage(run)} | "
            f"{_number(fmean(ok) if ok else None)} | {_number(c['Pearson'])} ({len(ok)}) | "
            f"{_number(c['Spearman'])} | {_number(c['MAE'])} | "
            f"{_number(area) if chunks else 'n/a'} ({chunks}) |"
        )
    return lines


def targets(task: str, runs: list[Run], agreement: dict[str, float | None]) -> list[str]:
    """Each target, with what this run measured for every offline-recall row."""
    peers = [r for r in runs if not r.ours]
    ours = [r for r in runs if r.ours]
    fastest = max(peers, key=lambda r: r.rate)
    met = {True: "met", False: "not met"}
    scored = [a for a in (agreement[r.name] for r in peers) if a is not None]
    best_peer = max(scored, default=None)
    lines = [
        f"- {task}: items/s at least 3x the fastest peer's through the same server "
        f"({fastest.name}, {fastest.rate:.3f}/s): "
        + "; ".join(
            f"{r.name} {met[r.rate >= 3 * fastest.rate]}, {r.rate / fastest.rate:.1f}x"
            for r in ours
            if "server" in r.name
        )
        + "; in process, for comparison: "
        + "; ".join(
            f"{r.name} {r.rate / fastest.rate:.1f}x" for r in ours if "server" not in r.name
        )
        + ".",
        f"- {task}: zero failed rows: "
        + "; ".join(f"{r.name} {met[r.failed == 0]} ({r.failed})" for r in ours)
        + "; peers' failed rows: "
        + ", ".join(f"{r.name} {r.failed}/{len(r.scores)}" for r in peers)
        + ".",
        f"- {task}: agreement (Pearson r) no lower than any peer's: "
        + (
            "no peer scored rows that can be correlated, so nothing to compare; "
            if best_peer is None
            else f"best peer {best_peer:.3f}; "
        )
        + "; ".join(f"{r.name} {_compared(agreement[r.name], best_peer)}" for r in ours)
        + ".",
    ]
    return lines


def _compared(value: float | None, best_peer: float | None) -> str:
    if value is None or best_peer is None:
        return _number(value)
    return f"{value:.3f} ({'met' if value >= best_peer else 'not met'})"


def errors(task: str, runs: list[Run]) -> list[str]:
    """One line per system with failed rows: each kind of error (first line, numbers as N)."""
    lines = []
    for run in runs:
        kinds = Counter(re.sub(r"\d+", "N", e.splitlines()[0])[:120] for e in run.errors)
        if kinds:
            lines.append(
                f"- {task}, {run.name}: " + "; ".join(f"`{k}` x{c}" for k, c in kinds.items())
            )
    return lines
