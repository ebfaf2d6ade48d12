"""How well does each judge agree with human labels, on attribution, claim extraction and
end-to-end recall?

    python benchmarks/quality/quality.py [--model NAME|PATH] [--data DIR] [--limit N]
        [--backend vllm|transformers|fake] [--json FILE]
        [--columns overlap,sentence_overlap,p_yes,one_call,given,shipped]
        [--sections wice_article,wice_chunks,klue,extraction,rose,...]

Data: the labelled sets in `../shared/data/` (see its README; KLUE-NLI is the Korean
attribution section), or any folder with the same
files. `--limit N` keeps N rows per file (N claims for the oracle-chunk file), chosen by a
seeded hash. One table, rows = metrics, columns = variants, all on the same rows:

  word overlap      share of the claim's content words found in the context; its decision
                    threshold is tuned for balanced accuracy on the dev WiCE full-article
                    file (`--tune`); end to end, its claims are the ground truth's sentences
  sentence overlap  no model: end to end, the mean over the ground truth's sentences of the
                    share of each one's content words found in its best context
  model P(yes)      the model's raw yes/no probability (the scorer's question about the
                    whole context, `signal_values`) at the manifest's threshold; end to end,
                    on the shipped scorer's claims
  one JSON call     the style hosted tools use: one generation per item, the context and the
                    whole ground truth in, a JSON list of {statement, attributed: yes|no}
                    out; score = attributed share (a pair counts as supported when every
                    statement is attributed). vLLM only.
  shipped           the library as shipped, its scorer built from the run spec:
                    scorer.assess / scorer.threshold per pair, scorer.run_many end to end, and
                    for extraction the claims of a run_many with no context (see recall.py);
                    its expected recall (the mean of the claims' probabilities) beside it
  given             the shipped judge on claims it is given: RoSE's human atomic facts, and
                    the ground truth's sentences (the judge's errors apart from the claims')

A context longer than the model's window is cut into pieces and the max over pieces taken,
as the scorer does. Failed rows (an extraction that failed, a pair the engine failed on, an
unparseable or too long JSON call) are counted per variant and left out of that variant's
metrics. `--backend fake` checks the plumbing only: its answers are word overlap.

Sections, in order (`--sections` runs a subset): WiCE whole article, WiCE oracle chunks,
KLUE-NLI, the behaviour cases of `tests/judging/test_judge_cases.py` (right / total per kind, each
column at its threshold), RoSE claim extraction, RoSE end to end, WiCE end to end, ClapNQ.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import quality_data as data
from benchmarks.quality.quality_judges import log
from benchmarks.quality.quality_metrics import (
    MATCH_THRESHOLD,
    ExtractionTally,
    auroc,
    auroc_interval,
    balanced_accuracy,
    correlations,
    max_or_none,
    mean,
    share_at_least,
    spearman,
    spearman_interval,
    tune_threshold,
)
from benchmarks.quality.quality_variants import (
    Variant,
    given_claims_variants,
    model_variants,
    overlap_variant,
    sentence_overlap_variant,
)
from offline_recall.engines import ENGINES
from offline_recall.judging.profile import ProfileOrigin, load_profile
from offline_recall.judging.signals import word_overlap
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.runs.spec import RunSpec

Value = float | int | str | None
A = TypeVar("A")
R = TypeVar("R")


@dataclass
class Section:
    title: str
    rows: dict[str, dict[str, Value]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def put(self, variant: str, metrics: dict[str, Value]) -> None:
        for metric, value in metrics.items():
            self.rows.setdefault(metric, {})[variant] = value


def timed(section: Section, variant: str, fn: Callable[[A], R], arg: A) -> R:
    log(f"{section.title}: {variant}")
    started = time.perf_counter()
    value = fn(arg)
    section.seconds[variant] = section.seconds.get(variant, 0.0) + time.perf_counter() - started
    return value


def counts(scores: Sequence[float | None]) -> str:
    return f"{sum(s is not None for s in scores)} ({sum(s is None for s in scores)})"


# Sections -------------------------------------------------------------------------------


def attribution(title: str, rows: list[data.AttributionRow], variants: list[Variant]) -> Section:
    """Balanced accuracy and AUROC per claim (max over a claim's rows), and per raw label."""
    section = Section(title)
    groups = list(dict.fromkeys(r.group for r in rows))
    first = {r.group: r for r in reversed(rows)}
    labels = [first[g].label for g in groups]
    raw = [first[g].label_raw for g in groups]
    for v in variants:
        if v.pairs is None:
            section.put(v.name, {"AUROC": f"same as {v.same_pairs}"} if v.same_pairs else {})
            continue
        scores = timed(section, v.name, v.pairs, [(r.context, r.claim) for r in rows])
        by_group: dict[str, list[float | None]] = {}
        for r, s in zip(rows, scores, strict=True):
            by_group.setdefault(r.group, []).append(s)
        claim_scores = [max_or_none(by_group[g]) for g in groups]
        metrics: dict[str, Value] = {
            "balanced accuracy": balanced_accuracy(labels, claim_scores, v.threshold),
            "AUROC": auroc(labels, claim_scores),
            "AUROC 95% interval": auroc_interval(labels, claim_scores),
        }
        for label in data.RAW_LABELS:
            picked = [s for s, r in zip(claim_scores, raw, strict=True) if r == label]
            metrics[f"mean score ({label})"] = mean(picked)
            metrics[f"judged supported ({label})"] = share_at_least(picked, v.threshold)
        for other in data.RAW_LABELS[1:]:
            pos = [s for s, r in zip(claim_scores, raw, strict=True) if r in ("supported", other)]
            y = [int(r == "supported") for r in raw if r in ("supported", other)]
            metrics[f"AUROC supported vs {other}"] = auroc(y, pos)
        metrics["claims scored (failed)"] = counts(claim_scores)
        section.put(v.name, metrics)
    return section


def extraction(rows: list[data.DecompositionRow], variants: list[Variant]) -> Section:
    section = Section("claim extraction: RoSE atomic facts")
    for v in variants:
        if v.extract is None:
            section.put(v.name, {"F1": f"same as {v.same_claims}"} if v.same_claims else {})
            continue
        found = timed(section, v.name, v.extract, [r.text for r in rows])
        tally = ExtractionTally()
        for claims, row in zip(found, rows, strict=True):
            if claims is not None:
                tally.add(claims, row.claims)
        metrics: dict[str, Value] = dict(tally.scores())
        metrics["texts scored (failed)"] = (
            f"{sum(f is not None for f in found)} ({found.count(None)})"
        )
        section.put(v.name, metrics)
    return section


def e2e(title: str, rows: list[data.RecallRow], variants: list[Variant], kind: str) -> Section:
    section = Section(title)
    targets = [r.target for r in rows]
    for v in variants:
        items = [(r.reference, r.contexts) for r in rows]
        scores = timed(section, v.name, v.recall, items)
        metrics: dict[str, Value] = {}
        if kind == "rose":
            metrics.update(correlations(targets, scores))
            metrics["Spearman 95% interval"] = spearman_interval(targets, scores)
        else:
            metrics["AUROC all vs rest"] = auroc([float(t == 2) for t in targets], scores)
            metrics["Spearman, none < some < all"] = spearman(targets, scores)
            for name, order in data.EXPECTED_ORDER.items():
                picked = [s for s, t in zip(scores, targets, strict=True) if t == order]
                metrics[f"mean recall ({name})"] = mean(picked)
        metrics["items scored (failed)"] = counts(scores)
        section.put(v.name, metrics)
    return section


def clapnq(rows: data.ClapRows, variants: list[Variant]) -> Section:
    section = Section("end to end: ClapNQ, gold sentences vs another question's passage")
    n = len(rows.gold)
    for v in variants:
        items = [(r.reference, r.contexts) for r in rows.gold + rows.other]
        scores = timed(section, v.name, v.recall, items)
        gold, other = scores[:n], scores[n:]
        section.put(
            v.name,
            {
                "mean recall (gold sentences)": mean(gold),
                "mean recall (other passage)": mean(other),
                "AUROC gold vs other": auroc([1.0] * n + [0.0] * n, scores),
                "items scored (failed)": f"{counts(gold)} / {counts(other)}",
            },
        )
    return section


def behaviour(variants: list[Variant]) -> Section:
    """The judge's behaviour cases (`tests/judging/test_judge_cases.py`): right / total per
    kind, each pair decided at the variant's threshold."""
    from tests.judging.test_judge_cases import CASES

    section = Section("behaviour cases (tests/judging/test_judge_cases.py), right / total per kind")
    for v in variants:
        if v.pairs is None:
            continue
        scores = timed(section, v.name, v.pairs, [(c.context, c.claim) for c in CASES])
        right: dict[str, list[bool]] = {}
        for case, s in zip(CASES, scores, strict=True):
            right.setdefault(case.kind, []).append(
                s is not None and (s >= v.threshold) == case.supported
            )
        metrics: dict[str, Value] = {k: f"{sum(m)}/{len(m)}" for k, m in right.items()}
        metrics["all kinds"] = f"{sum(sum(m) for m in right.values())}/{len(CASES)}"
        metrics["cases scored (failed)"] = counts(scores)
        section.put(v.name, metrics)
    return section


# Output ----------------------------------------------------------------------------------


def cell(value: Value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def table(sections: list[Section], columns: list[str]) -> str:
    lines = [f"| metric | {' | '.join(columns)} |", "|---|" + "---:|" * len(columns)]
    for s in sections:
        lines.append(f"| **{s.title}** |" + " |" * len(columns))
        for metric, values in s.rows.items():
            lines.append(f"| {metric} | {' | '.join(cell(values.get(c)) for c in columns)} |")
        seconds = [f"{s.seconds[c]:.1f}" if c in s.seconds else "" for c in columns]
        lines.append(f"| seconds | {' | '.join(seconds)} |")
    return "\n".join(lines)


SECTIONS = (
    "wice_article",
    "wice_chunks",
    "klue",
    "behaviour",
    "extraction",
    "rose",
    "wice_e2e",
    "clapnq",
)
"""--sections names, in the order the table shows them."""


def all_sections(
    d: Path, n: int | None, seed: int, variants: list[Variant], only: Sequence[str] = SECTIONS
) -> list[Section]:
    """The sections named in `only` (every one by default) on the data folder `d`, `n` rows
    per file (all if None)."""
    build: dict[str, Callable[[], Section]] = {
        "wice_article": lambda: attribution(
            "attribution: WiCE, whole article",
            data.attribution(d / data.WICE_ARTICLE, n, seed),
            variants,
        ),
        "wice_chunks": lambda: attribution(
            "attribution: WiCE, oracle chunks (max over a claim's chunks)",
            data.attribution(d / data.WICE_CHUNKS, n, seed),
            variants,
        ),
        "klue": lambda: attribution(
            "attribution: KLUE-NLI, Korean (entailment vs the rest)",
            data.attribution(d / data.KLUE, n, seed),
            variants,
        ),
        "behaviour": lambda: behaviour(variants),
        "extraction": lambda: extraction(data.decomposition(d / data.ROSE_ACUS, n, seed), variants),
        "rose": lambda: e2e(
            "end to end: RoSE, recall vs human_recall",
            data.rose_e2e(d / data.ROSE_E2E, n, seed),
            variants,
            "rose",
        ),
        "wice_e2e": lambda: e2e(
            "end to end: WiCE, claim vs article",
            data.wice_e2e(d / data.WICE_E2E, n, seed),
            variants,
            "wice",
        ),
        "clapnq": lambda: clapnq(data.clapnq(d / data.CLAPNQ_E2E, n, seed), variants),
    }
    return [_logged(build[name]()) for name in SECTIONS if name in only]


def _logged(section: Section) -> Section:
    """The section, its table also logged as soon as it is done (a long run keeps its parts)."""
    columns = list(dict.fromkeys(v for values in section.rows.values() for v in values))
    log("\n" + table([section], columns))
    return section


def profile_note(spec: RunSpec) -> str:
    """Which rule decided the shipped column, flagged when a user's calibration overrode it."""
    chosen = spec.scorer(ContextRecallScorer.id)
    profile = chosen.setup.judge_profile
    note = f"{profile.trained_on or 'unnamed'} (digest {profile.digest})"
    if chosen.profile_origin == ProfileOrigin.CALIBRATED:
        note += ", a profile calibrated on this machine, not the one shipped"
    return note


# --columns names, in the order the table shows them.
COLUMNS = {
    "overlap": ("word overlap",),
    "sentence_overlap": ("sentence overlap",),
    "p_yes": ("model P(yes)",),
    "one_call": ("one JSON call",),
    "given": ("human facts", "sentences,"),
    "shipped": ("shipped",),
}


def _column(variant: str) -> str:
    """The --columns name of a variant (its name starts with one of the name's prefixes)."""
    for key, prefixes in COLUMNS.items():
        if variant.startswith(prefixes):
            return key
    raise ValueError(f"no --columns name for {variant!r}")


def _facts(d: Path) -> dict[str, list[str]]:
    """RoSE's human atomic facts by reference text, for the given-claims columns."""
    return {r["reference"]: list(r["reference_acus"]) for r in data.read_jsonl(d / data.ROSE_E2E)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="smollm2-135m-instruct", help="model name or manifest")
    parser.add_argument("--data", type=Path, default=data.DATA, help="labelled data folder")
    parser.add_argument("--tune", type=Path, default=data.DATA, help="where baselines are tuned")
    parser.add_argument("--limit", type=int, help="rows per file (claims for oracle chunks)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --limit choice")
    parser.add_argument("--backend", choices=list(ENGINES), default="vllm", help="the engine")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--prompt-version", help="context recall's prompts [default: the model's]")
    parser.add_argument("--profile", type=Path, help="a judge profile file to decide with")
    parser.add_argument(
        "--columns",
        default="overlap,sentence_overlap,p_yes,one_call,shipped",
        help=f"comma-separated subset of {','.join(COLUMNS)} (the model columns are slow; "
        "given: the shipped judge on human facts and on sentences)",
    )
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help=f"comma-separated subset of {','.join(SECTIONS)} [default: every one]",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()

    wanted = {c.strip() for c in args.columns.split(",")}
    unknown = wanted - set(COLUMNS)
    if unknown:
        parser.error(f"unknown columns {sorted(unknown)}; known: {', '.join(COLUMNS)}")
    only = [name.strip() for name in args.sections.split(",")]
    if unknown_sections := set(only) - set(SECTIONS):
        parser.error(f"unknown sections {sorted(unknown_sections)}; known: {', '.join(SECTIONS)}")
    tune_rows = data.attribution(args.tune / data.WICE_ARTICLE, None, args.seed)
    overlap_t = tune_threshold(
        [r.label for r in tune_rows], [word_overlap(r.context, r.claim) for r in tune_rows]
    )
    recall = ContextRecallScorer.id
    resolved = resolve(
        model=args.model,
        backend=args.backend,
        prompt_versions={recall: args.prompt_version} if args.prompt_version else None,
        profiles={recall: load_profile(args.profile)} if args.profile else None,
    )
    spec = resolved.spec
    scoring = session(resolved)
    n, seed = args.limit, args.seed
    try:
        every = [
            overlap_variant(overlap_t),
            sentence_overlap_variant(overlap_t),
            *model_variants(spec, scoring.engine),
            *given_claims_variants(spec, scoring.engine, _facts(args.data)),
        ]
        variants = [v for v in every if _column(v.name) in wanted]
        sections = all_sections(args.data, n, seed, variants, only)
    finally:
        scoring.close()

    # Computed as listed (the P(yes) column reuses the shipped claims), shown by column.
    names = [v.name for v in variants]
    columns = sorted(
        names, key=lambda name: (list(COLUMNS).index(_column(name)), names.index(name))
    )
    thresholds = {v.name: v.threshold for v in variants}
    prompt_version = spec.scorer(ContextRecallScorer.id).setup.prompt_version
    header = [
        f"model {spec.model_fingerprint}, prompt {prompt_version}, backend {args.backend}; "
        f"data {args.data}" + (f", --limit {n} (seed {seed})" if n else ""),
        "thresholds (supported = score >= threshold): "
        + "; ".join(f"{k} {t:.3f}" for k, t in thresholds.items())
        + f" (word overlap tuned for balanced accuracy on {args.tune / data.WICE_ARTICLE}, "
        f"{len(tune_rows)} rows)",
        f"shipped judge profile: {profile_note(spec)}",
        f"claim matcher: greedy one-to-one on content-word F1 >= {MATCH_THRESHOLD}",
        f"total {time.perf_counter() - started:.0f} s",
    ]
    print("\n".join(header) + "\n\n" + table(sections, columns))
    if args.json:
        report = {
            "command": " ".join(sys.argv),
            "model": spec.model_fingerprint,
            "prompt_version": prompt_version,
            "backend": args.backend,
            "judge_profile": profile_note(spec),
            "data": str(args.data),
            "limit": n,
            "seed": seed,
            "sections_run": only,
            "thresholds": thresholds,
            "matcher": {"kind": "greedy one-to-one, content-word F1", "threshold": MATCH_THRESHOLD},
            "sections": [
                {"title": s.title, "metrics": s.rows, "seconds": s.seconds} for s in sections
            ],
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
