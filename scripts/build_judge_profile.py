"""Build the judge profile shipped with a bundled model, and print how each rule compares.

    python scripts/build_judge_profile.py [--model NAME] [--backend vllm] [--data FILE ...]
                                          [--limit N] [--sets all,lexical,model] [--korean SET]
                                          [--prompt-version V] [--no-negatives]
                                          [--threshold T] [--signals-out FILE]

Calibrates one profile per signal set on every labelled (claim, context) pair, as
`offline-recall calibrate --signals SET` does: the model's P(yes) on the pair's best evidence
sentences (for the sets that use the model) and the lexical signals, fitted with grouped
5-fold cross-validation. Prints the cross-validated numbers beside word overlap. The profile
with the best cross-validated AUROC is written to models/NAME.PROMPT.judge.json, with its
training data and seed recorded in it. Data: WiCE dev oracle chunks (`../shared/data`) unless
`--data` names files (repeat it to mix sets, e.g. WiCE and KLUE); `--limit N` keeps N claims of
each file. The model is asked once per pair, whichever sets use its answer. Every fit also sees
the negatives a user meets, made from the labelled claims (`offline_recall.judging.negatives`:
each claim against an unrelated context, each supported claim contradicted by rule), and a
table compares each set fitted with and without them on held-out folds, per kind;
`--no-negatives` ships the profile fitted without them.
`--sets lexical` fits the lexical rule alone: no model call, seconds instead of minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from offline_recall import DEFAULT_MODEL
from offline_recall.engines import ENGINES
from offline_recall.judging.behaviour import cases
from offline_recall.judging.labelled import LabelledPair, read_labelled
from offline_recall.judging.negatives import KINDS, kind_of, with_negatives
from offline_recall.judging.profile import save_profile
from offline_recall.metrics.recall import ID as RECALL
from offline_recall.runs.calibration import Calibration, calibrate_sets, profile_card
from offline_recall.runs.calibration.fit import SIGNAL_SETS, fit_profile
from offline_recall.runs.score import resolve, session
from offline_recall.runs.spec import RunSpec

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wice" / "attribution_claim_oraclechunk_dev.jsonl"
SETS = {"wice": "WiCE dev", "klue": "KLUE-NLI dev", "rose": "RoSE dev", "clapnq": "ClapNQ dev"}
"""The labelled sets under ../shared/data/, by folder, as a profile's `trained_on` names them."""
EVIDENCE_SENTENCES = 3
SEED = 0
FOLDS = 5


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
        "--prompt-version",
        default=None,
        help="context recall's prompt set to judge with [default: the model's]",
    )
    parser.add_argument(
        "--korean",
        choices=list(SIGNAL_SETS),
        default=None,
        help="give claims written in Hangul a rule of their own over this signal set",
    )
    parser.add_argument(
        "--no-negatives",
        action="store_true",
        help="fit the shipped profile on the labelled claims alone (the made negatives are "
        "still judged, for the comparison table)",
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
        "accuracy (chosen by the end-to-end objective: benchmarks/quality/threshold_sweep.py)",
    )
    parser.add_argument(
        "--signals-in",
        type=Path,
        default=None,
        help="fit on the signals scripts/record_signals.py recorded (the same --data and "
        "--limit) instead of judging now; its behaviour cases make the profile's card",
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

    versions = {RECALL: args.prompt_version} if args.prompt_version else None
    resolved = resolve(model=args.model, backend=args.backend, prompt_versions=versions)
    spec = resolved.spec
    pairs: list[LabelledPair] = []
    described = []
    for path in args.data or [DATA]:
        read, errors = read_labelled(path)
        if errors:
            raise SystemExit(f"{path}: {len(errors)} unusable rows, first: {errors[0].message}")
        kept = _limited(read, args.limit)
        pairs += kept
        source = SETS.get(path.parent.name, path.parent.name)
        claims_kept = len({p.group for p in kept})
        described.append(f"{source} ({path.name}): {claims_kept} claims, {len(kept)} pairs")
    claims = len({p.group for p in pairs})
    trained_on = f"{'; '.join(described)}; grouped 5-fold CV; seed {SEED}"
    if not args.no_negatives:
        trained_on += "; with negatives made from its claims (unrelated contexts, contradictions)"
    if args.korean:
        trained_on += f"; claims in Hangul decided by a rule of their own over {args.korean}"
    print(f"{len(pairs)} pairs ({claims} claims) on {args.backend}, {spec.model_fingerprint}")

    print("| signals | CV AUROC | CV balanced accuracy | threshold | pairs (failed) |")
    print("|---|---:|---:|---:|---:|")
    started = time.perf_counter()
    if args.signals_in is not None:
        found = recorded_fits(args.signals_in, pairs, spec, sets, trained_on, args.korean)
    else:
        scoring = session(resolved)
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
                negatives=True,
            )
        finally:
            scoring.close()
    judged = list(next(iter(found.values())).judged)
    korean = SIGNAL_SETS[args.korean] if args.korean else None
    if args.no_negatives:
        labelled_only = [(p, v) for p, v in judged if kind_of(p.group) is None]
        for name in found:
            refit = fit_profile(
                [p for p, _ in labelled_only],
                [v for _, v in labelled_only],
                fingerprint=spec.model_fingerprint,
                prompt_version=spec.scorer(RECALL).setup.prompt_version,
                signals=SIGNAL_SETS[name],
                evidence_sentences=found[name].profile.evidence_sentences,
                seed=SEED,
                trained_on=trained_on,
                korean_signals=korean,
            )
            found[name] = found[name]._replace(profile=refit)
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
    print(negatives_table(judged, {name: SIGNAL_SETS[name] for name in sets}, korean))

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


def recorded_fits(
    path: Path,
    pairs: list[LabelledPair],
    spec: RunSpec,
    sets: list[str],
    trained_on: str,
    korean: str | None,
) -> dict[str, Calibration]:
    """Each signal set fitted on `pairs` and the negatives made from them, with the signals
    `scripts/record_signals.py` recorded for them in `path`, and the card its recorded
    behaviour cases give."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    on_cases = {(r["context"], r["claim"]): r["signals"] for r in rows}
    wanted = with_negatives(pairs)
    unrecorded = [p for p in wanted if (p.context, p.claim) not in on_cases]
    if unrecorded:
        raise SystemExit(f"{path}: {len(unrecorded)} of {len(wanted)} pairs not recorded")
    judged = [(p, on_cases[(p.context, p.claim)]) for p in wanted]
    missing = [c for c in cases() if (c.context, c.claim) not in on_cases]
    if missing:
        raise SystemExit(f"{path}: {len(missing)} behaviour cases not recorded (--cases)")
    values = [on_cases[(c.context, c.claim)] for c in cases()]
    found = {}
    for name in sets:
        profile = fit_profile(
            [p for p, _ in judged],
            [v for _, v in judged],
            fingerprint=spec.model_fingerprint,
            prompt_version=spec.scorer(RECALL).setup.prompt_version,
            signals=SIGNAL_SETS[name],
            evidence_sentences=EVIDENCE_SENTENCES,
            seed=SEED,
            trained_on=trained_on + "; signals recorded by scripts/record_signals.py",
            korean_signals=SIGNAL_SETS[korean] if korean else None,
        )
        profile = profile.model_copy(update={"card": profile_card(profile, values)})
        found[name] = Calibration(
            profile=profile,
            claims=len({p.group for p, _ in judged if kind_of(p.group) is None}),
            pairs=len(judged),
            failed=0,
            replaced=spec.scorer(RECALL),
            replaced_auroc=None,
            judged=tuple(judged),
        )
    return found


def negatives_table(
    judged: list[tuple[LabelledPair, dict[str, float]]],
    sets: dict[str, tuple[str, ...]],
    korean: tuple[str, ...] | None,
) -> str:
    """Each signal set fitted with and without the made negatives, judged on held-out folds:
    AUROC and balanced accuracy on the labelled claims, and per kind of made negative the share
    judged unsupported. A made claim falls in its source claim's fold, so no claim text is seen
    in training and testing."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    def source(group: str) -> str:
        return group.partition(":")[2] if kind_of(group) else group

    claims = sorted({source(p.group) for p, _ in judged}, key=_rank)
    fold = {group: i % FOLDS for i, group in enumerate(claims)}
    label = {p.group: p.label for p, _ in judged}
    made = [k for k in KINDS if any(kind_of(p.group) == k for p, _ in judged)]
    lines = [
        "| signals | trained with negatives | AUROC (labelled claims) | balanced accuracy | "
        + " | ".join(f"{k} judged unsupported" for k in made)
        + " |",
        "|---|---|---:|---:|" + "---:|" * len(made),
    ]
    for name, signals in sets.items():
        for with_made in (False, True):
            best: dict[str, float] = {}
            decided: dict[str, bool] = {}
            for k in range(FOLDS):
                train = [
                    (p, v)
                    for p, v in judged
                    if fold[source(p.group)] != k and (with_made or kind_of(p.group) is None)
                ]
                profile = fit_profile(
                    [p for p, _ in train],
                    [v for _, v in train],
                    fingerprint="check",
                    prompt_version="check",
                    signals=signals,
                    evidence_sentences=EVIDENCE_SENTENCES,
                    seed=SEED,
                    korean_signals=korean,
                )
                tested: dict[str, float] = {}
                for p, v in judged:
                    if fold[source(p.group)] == k:
                        q = profile.rule_for(str(p.claim)).probability(v)
                        tested[p.group] = max(tested.get(p.group, 0.0), q)
                best |= tested
                decided |= {g: q >= profile.threshold for g, q in tested.items()}
            labelled = [g for g in best if kind_of(g) is None]
            y = [label[g] for g in labelled]
            shares = []
            for kind in made:
                groups = [g for g in best if kind_of(g) == kind]
                shares.append(f"{sum(not decided[g] for g in groups)} of {len(groups)}")
            lines.append(
                f"| {name} | {'yes' if with_made else 'no'} "
                f"| {roc_auc_score(y, [best[g] for g in labelled]):.3f} "
                f"| {balanced_accuracy_score(y, [decided[g] for g in labelled]):.3f} | "
                + " | ".join(shares)
                + " |"
            )
    return "\n".join(lines)


def _rank(group: str) -> str:
    return hashlib.sha256(f"{SEED}:{group}".encode()).hexdigest()


def _limited(pairs: list[LabelledPair], limit: int | None) -> list[LabelledPair]:
    """The pairs of the first `limit` groups in the order of a seeded hash of their names."""
    if limit is None:
        return pairs

    chosen = set(sorted({p.group for p in pairs}, key=_rank)[:limit])
    return [p for p in pairs if p.group in chosen]


if __name__ == "__main__":
    main()
