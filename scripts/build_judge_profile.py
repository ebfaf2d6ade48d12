"""Build the judge profile shipped with a bundled model, and print how each rule compares.

    python scripts/build_judge_profile.py [--model NAME] [--backend vllm] [--data FILE]

Judges every labelled (claim, context) pair once (the model's P(yes) on the pair's best
evidence sentences, and the lexical signals), then fits one profile per signal set with
grouped 5-fold cross-validation and prints the cross-validated numbers beside word overlap.
The profile with the best cross-validated AUROC is written to models/NAME.judge.json, with
its training data and seed recorded in it. Data: WiCE dev oracle chunks (`../shared/data`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from offline_recall.backends import create_backend
from offline_recall.calibrate import fit_profile
from offline_recall.cli.calibrate import SIGNAL_SETS
from offline_recall.judge import signal_values
from offline_recall.labelled import read_labelled
from offline_recall.models import DEFAULT_MODEL, load_manifest
from offline_recall.profile import JudgeProfile, save_profile

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wice" / "attribution_claim_oraclechunk_dev.jsonl"
EVIDENCE_SENTENCES = 3
SEED = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", default="vllm")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    manifest = load_manifest(args.model)
    pairs, errors = read_labelled(args.data)
    if errors:
        raise SystemExit(f"{args.data}: {len(errors)} unusable rows, first: {errors[0].message}")
    backend = create_backend(args.backend, manifest)
    started = time.perf_counter()
    values = signal_values(
        backend,
        [(p.context, p.claim) for p in pairs],
        evidence_sentences=EVIDENCE_SENTENCES,
    )
    seconds = time.perf_counter() - started
    claims = len({p.group for p in pairs})
    print(f"{len(pairs)} pairs ({claims} claims) judged in {seconds:.1f} s on {args.backend}")

    profiles: dict[str, JudgeProfile] = {}
    print("| signals | CV AUROC | CV balanced accuracy | threshold |")
    print("|---|---:|---:|---:|")
    for name, signals in SIGNAL_SETS.items():
        profile = fit_profile(
            pairs,
            values,
            fingerprint=backend.info.fingerprint,
            prompt_version=backend.info.prompt_version,
            signals=signals,
            evidence_sentences=EVIDENCE_SENTENCES if "model" in signals else None,
            seed=SEED,
            trained_on=f"WiCE dev oracle chunks ({args.data.name}): {claims} claims, "
            f"{len(pairs)} pairs; grouped 5-fold CV; seed {SEED}",
        )
        checked = profile.cross_validated
        assert checked is not None
        profiles[name] = profile
        print(
            f"| {name} | {checked.auroc:.3f} | {checked.balanced_accuracy:.3f} "
            f"| {profile.threshold:.3f} |"
        )
    baseline = next(iter(profiles.values())).cross_validated
    assert baseline is not None
    print(
        f"| word overlap (baseline) | {baseline.baseline_auroc:.3f} "
        f"| {baseline.baseline_balanced_accuracy:.3f} (threshold tuned on all rows) | |"
    )

    def auroc(name: str) -> float:
        checked = profiles[name].cross_validated
        return checked.auroc if checked else 0.0

    best = max(profiles, key=auroc)
    out = args.out or ROOT / "models" / f"{manifest.name}.judge.json"
    save_profile(profiles[best], out)
    print(f"shipped: {best} -> {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


if __name__ == "__main__":
    main()
