"""Build the judge profile shipped with a bundled model, and print how each rule compares.

    python scripts/build_judge_profile.py [--model NAME] [--backend vllm] [--data FILE ...]
                                          [--limit N] [--sets all,lexical,model] [--korean SET]
                                          [--threshold T] [--signals-out FILE]

Calibrates one profile per signal set on every labelled (claim, context) pair, as
`offline-recall calibrate --signals SET` does: the model's P(yes) on the pair's best evidence
sentences (for the sets that use the model) and the lexical signals, fitted with grouped
5-fold cross-validation. Prints the cross-validated numbers beside word overlap. The profile
with the best cross-validated AUROC is written to models/NAME.PROMPT.judge.json, with its
training data and seed recorded in it. Data: WiCE dev oracle chunks (`../shared/data`) unless
`--data` names files (repeat it to mix sets, e.g. WiCE and KLUE); `--limit N` keeps N claims of
each file. The model is asked once per pair, whichever sets use its answer.
`--sets lexical` fits the lexical rule alone: no model call, seconds instead of minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from offline_recall import DEFAULT_MODEL, ENGINES
from offline_recall.judging.calibrate import SIGNAL_SETS
from offline_recall.judging.labelled import LabelledPair, read_labelled
from offline_recall.judging.profile import save_profile
from offline_recall.runners.calibration import calibrate_sets
from offline_recall.runners.scoring import Scoring
from offline_recall.scorers.recall import ID as RECALL
from offline_recall.spec.resolve import resolve_run

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wice" / "attribution_claim_oraclechunk_dev.jsonl"
EVIDENCE_SENTENCES = 3
SEED = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", choices=list(ENGINES), default="vllm", help="the engine")
    parser.add_argument(
        "--data",
        type=Path,
        action="append",
        help=f"labelled pairs, repeatable [default: {DATA.relative_to(ROOT.parent)}]",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="claims (groups) kept per file, chosen by a seeded hash [default: all]",
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--korean",
        choices=list(SIGNAL_SETS),
        default=None,
        help="give claims written in Hangul a rule of their own over this signal set",
    )
    parser.add_argument(
        "--signals-out",
        type=Path,
        default=None,
        help="also write each judged pair's signals here (JSON Lines: group, label, signals)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="count claims at this threshold instead of the one that maximises balanced "
        "accuracy (chosen by the end-to-end objective: benchmarks/threshold_sweep.py)",
    )
    parser.add_argument(
        "--sets",
        default=",".join(SIGNAL_SETS),
        help=f"comma-separated signal sets to fit and compare ({', '.join(SIGNAL_SETS)})",
    )
    args = parser.parse_args()
    sets = [name.strip() for name in args.sets.split(",")]
    if unknown := [name for name in sets if name not in SIGNAL_SETS]:
        parser.error(f"unknown signal sets {unknown}; known: {', '.join(SIGNAL_SETS)}")

    resolved = resolve_run(args.model, engine=args.backend)
    spec = resolved.spec
    pairs: list[LabelledPair] = []
    described = []
    for path in args.data or [DATA]:
        read, errors = read_labelled(path)
        if errors:
            raise SystemExit(f"{path}: {len(errors)} unusable rows, first: {errors[0].message}")
        kept = _limited(read, args.limit)
        pairs += kept
        described.append(f"{path.name}: {len({p.group for p in kept})} claims, {len(kept)} pairs")
    claims = len({p.group for p in pairs})
    trained_on = f"{'; '.join(described)} (dev); grouped 5-fold CV; seed {SEED}"
    if args.korean:
        trained_on += f"; claims in Hangul decided by a rule of their own over {args.korean}"
    print(f"{len(pairs)} pairs ({claims} claims) on {args.backend}, {spec.model_fingerprint}")

    print("| signals | CV AUROC | CV balanced accuracy | threshold | pairs (failed) |")
    print("|---|---:|---:|---:|---:|")
    started = time.perf_counter()
    scoring = Scoring.start(resolved)
    try:
        found = calibrate_sets(
            spec,
            pairs,
            sets,
            scoring=scoring,
            evidence_sentences=EVIDENCE_SENTENCES,
            seed=SEED,
            trained_on=trained_on,
            compare=False,
            korean=args.korean,
        )
    finally:
        scoring.close()
    if args.signals_out:
        first = next(iter(found.values()))
        with args.signals_out.open("w", encoding="utf-8") as f:
            for pair, values in first.judged:
                row = {
                    "group": pair.group,
                    "claim": pair.claim,
                    "context": pair.context,
                    "label": pair.label,
                    "signals": values,
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    for name, fitted in found.items():
        checked = fitted.profile.cross_validated
        assert checked is not None
        print(
            f"| {name} | {checked.auroc:.3f} | {checked.balanced_accuracy:.3f} "
            f"| {fitted.profile.threshold:.3f} | {fitted.pairs} ({fitted.failed}) |"
        )
    baseline = next(iter(found.values())).profile.cross_validated
    assert baseline is not None
    print(
        f"| word overlap (baseline) | {baseline.baseline_auroc:.3f} "
        f"| {baseline.baseline_balanced_accuracy:.3f} (threshold tuned on all rows) | | |"
    )
    print(f"judged once for every set: {time.perf_counter() - started:.0f} s")

    def auroc(name: str) -> float:
        checked = found[name].profile.cross_validated
        return checked.auroc if checked else 0.0

    best = max(found, key=auroc)
    profile = found[best].profile
    if args.threshold is not None:
        profile = profile.model_copy(
            update={
                "threshold": args.threshold,
                "trained_on": f"{profile.trained_on}; threshold {args.threshold} chosen by the "
                f"end-to-end objective on dev (balanced accuracy's: {profile.threshold:.3f})",
            }
        )
    manifest = resolved.model.manifest
    name = f"{manifest.name}.{spec.scorer(RECALL).setup.prompt_version}.judge.json"
    out = args.out or ROOT / "models" / name
    save_profile(profile, out)
    print(f"shipped: {best} -> {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def _limited(pairs: list[LabelledPair], limit: int | None) -> list[LabelledPair]:
    """The pairs of the first `limit` groups in the order of a seeded hash of their names."""
    if limit is None:
        return pairs

    def rank(group: str) -> str:
        return hashlib.sha256(f"{SEED}:{group}".encode()).hexdigest()

    chosen = set(sorted({p.group for p in pairs}, key=rank)[:limit])
    return [p for p in pairs if p.group in chosen]


if __name__ == "__main__":
    main()
