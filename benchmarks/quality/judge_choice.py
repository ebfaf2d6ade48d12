"""Which judge should decide by default? The candidates on the same recorded dev pairs.

    python benchmarks/quality/judge_choice.py --signals-in FILE [--model NAME]
        [--p-yes-of NAME=FILE ...] [--folds 5] [--resamples 1000]

Reads what `scripts/record_signals.py` recorded for a model (its P(yes) and every lexical
signal on WiCE dev oracle chunks, KLUE-NLI dev pairs, the negatives made from them, and the
behaviour cases) and prints one table: per set, the AUROC of each claim's best chunk with a
bootstrap 95% interval (claims resampled), and per kind of behaviour case the share right.
Columns: the embedded model's shipped lexical rule, the recorded model's (`--model`) own rule
as its runs decide (its P(yes) at the manifest's 0.5, a claim its chunk states word for word
given the manifest's `stated_p_yes` instead of asking), and a sign-bounded profile over P(yes)
and every lexical signal fitted on the recorded pairs, judged out of fold (grouped by source
claim; the made negatives train only). `--p-yes-of NAME=FILE` adds another model's own rule on
its recording by the same command.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.quality_metrics import auroc
from offline_recall.engines.manifests import DEFAULT_MODEL, load_manifest
from offline_recall.judging.behaviour import KINDS, cases
from offline_recall.judging.korean import has_hangul
from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.negatives import kind_of
from offline_recall.judging.profile import RECALL, find_profile
from offline_recall.runs.calibration.fit import DEFAULT_SIGNALS, fit_profile

Row = dict[str, object]
Scorer = Callable[[str, dict[str, float]], float]


def _rule(model: str) -> tuple[Scorer, float]:
    """The rule a run of `model` decides by (a stated claim given the profile's stated P(yes)
    instead of the recorded one), and its threshold."""
    manifest = load_manifest(model)
    version = manifest.scorers[RECALL].prompt_version or ""
    profile = find_profile(
        RECALL,
        manifest.fingerprint,
        version,
        manifest.threshold,
        manifest.stated_p_yes,
        manifest.vetoes,
    ).profile
    return profile.probability_of, profile.threshold


def _source(group: str) -> str:
    return group.partition(":")[2] if kind_of(group) else group


def _out_of_fold(rows: list[Row], folds: int) -> tuple[dict[str, float], float]:
    """Each labelled claim's best out-of-fold probability under a profile fitted on the other
    folds (made negatives included in training), and the threshold of a fit on every row."""
    claims = sorted({_source(str(r["group"])) for r in rows})
    fold = {g: i % folds for i, g in enumerate(random.Random(0).sample(claims, len(claims)))}

    def fit(train: list[Row]):
        return fit_profile(
            [LabelledPair(str(r["context"]), str(r["claim"]), bool(r["label"]), str(r["group"]))
             for r in train],
            [r["signals"] for r in train],  # type: ignore[misc]
            fingerprint="check",
            prompt_version="check",
            signals=DEFAULT_SIGNALS,
            evidence_sentences=3,
        )  # fmt: skip

    best: dict[str, float] = {}
    for k in range(folds):
        profile = fit([r for r in rows if fold[_source(str(r["group"]))] != k])
        for r in rows:
            group = str(r["group"])
            if fold[_source(group)] == k and kind_of(group) is None:
                p = profile.rule_for(str(r["claim"])).probability(r["signals"])  # type: ignore[arg-type]
                best[group] = max(best.get(group, 0.0), p)
    return best, fit(rows).threshold


def _interval(
    groups: list[str], labels: dict[str, bool], score: dict[str, float], resamples: int
) -> str:
    found = auroc([float(labels[g]) for g in groups], [score[g] for g in groups])
    if found is None:
        return "-"
    rng = random.Random(0)
    draws = []
    for _ in range(resamples):
        pick = [rng.choice(groups) for _ in groups]
        value = auroc([float(labels[g]) for g in pick], [score[g] for g in pick])
        if value is not None:
            draws.append(value)
    draws.sort()
    low, high = draws[int(0.025 * len(draws))], draws[int(0.975 * len(draws)) - 1]
    return f"{found:.3f} [{low:.3f}, {high:.3f}]"


def _best(rows: list[Row], score: Scorer) -> dict[str, float]:
    best: dict[str, float] = {}
    for r in rows:
        group = str(r["group"])
        p = score(str(r["claim"]), r["signals"])  # type: ignore[arg-type]
        best[group] = max(best.get(group, 0.0), p)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signals-in", type=Path, required=True)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct", help="recorded in FILE")
    parser.add_argument("--p-yes-of", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    rows = _read(args.signals_in)
    case_rows = _cases_of(rows)
    pairs = _pairs_of(rows)
    rule, rule_threshold = _rule(DEFAULT_MODEL)
    own, own_threshold = _rule(args.model)
    fitted, fitted_threshold = _out_of_fold(pairs, args.folds)
    columns: dict[str, tuple[dict[str, float], float]] = {
        "lexical rule (default)": (_best(pairs, rule), rule_threshold),
        f"{args.model}'s own rule": (_best(pairs, own), own_threshold),
        "fitted profile (out of fold)": (fitted, fitted_threshold),
    }
    scorers: dict[str, tuple[Scorer, float]] = {f"{args.model}'s own rule": (own, own_threshold)}
    others: dict[str, list[Row]] = {}
    for given in args.p_yes_of:
        model, _, path = given.partition("=")
        name = f"{model}'s own rule"
        others[name] = _read(Path(path))
        scorers[name] = _rule(model)
        columns[name] = (_best(_pairs_of(others[name]), scorers[name][0]), scorers[name][1])
    labels = {str(r["group"]): bool(r["label"]) for r in pairs}
    labelled = [g for g in labels if kind_of(g) is None]
    sets = {
        "WiCE oracle chunks, AUROC": [g for g in labelled if not has_hangul(_claim(pairs, g))],
        "KLUE-NLI, AUROC": [g for g in labelled if has_hangul(_claim(pairs, g))],
    }
    print(f"| set | {' | '.join(columns)} |")
    print("|---|" + "---:|" * len(columns))
    for name, groups in sets.items():
        cells = [_interval(groups, labels, score, args.resamples) for score, _ in columns.values()]
        print(f"| {name} ({len(groups)} claims) | {' | '.join(cells)} |")
    # The behaviour cases: the rule and P(yes) as they decide; the profile fitted on every pair.
    every = cases()
    decided: dict[str, list[bool]] = {name: [] for name in columns}
    profile = fit_profile(
        [LabelledPair(str(r["context"]), str(r["claim"]), bool(r["label"]), str(r["group"]))
         for r in pairs],
        [r["signals"] for r in pairs],  # type: ignore[misc]
        fingerprint="check", prompt_version="check", signals=DEFAULT_SIGNALS,
        evidence_sentences=3,
    )  # fmt: skip
    other_cases = {name: _cases_of(other) for name, other in others.items()}
    recorded = {name: case_rows for name in scorers} | other_cases
    for case in every:
        values = case_rows[(case.context, case.claim)]["signals"]
        decided["lexical rule (default)"].append(rule(case.claim, values) >= rule_threshold)  # type: ignore[arg-type]
        p = profile.rule_for(case.claim).probability(values)  # type: ignore[arg-type]
        decided["fitted profile (out of fold)"].append(p >= profile.threshold)
        for name, (score, threshold) in scorers.items():
            asked = recorded[name][(case.context, case.claim)]["signals"]
            decided[name].append(score(case.claim, asked) >= threshold)  # type: ignore[arg-type]
    for kind in KINDS:
        chosen = [i for i, c in enumerate(every) if c.kind == kind]
        cells = []
        for name in columns:
            right = sum(decided[name][i] == every[i].supported for i in chosen)
            cells.append(f"{right}/{len(chosen)}")
        print(f"| behaviour: {kind}, right | {' | '.join(cells)} |")


def _read(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def _cases_of(rows: list[Row]) -> dict[tuple[object, object], Row]:
    """The behaviour cases' rows by (context, claim)."""
    return {(r["context"], r["claim"]): r for r in rows if str(r["group"]).startswith("case:")}


def _pairs_of(rows: list[Row]) -> list[Row]:
    """The recorded dev pairs and their negatives: every row but the behaviour cases."""
    return [r for r in rows if not str(r["group"]).startswith("case:")]


def _claim(pairs: Sequence[Row], group: str) -> str:
    return next(str(r["claim"]) for r in pairs if r["group"] == group)


if __name__ == "__main__":
    main()
