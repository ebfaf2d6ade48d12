"""Build the context precision judge profile shipped with a bundled model.

    python scripts/build_precision_profile.py [--model NAME] [--backend transformers]
                                              [--signals lexical] [--data DIR]

Fits a profile on labelled relevance built from the dev data by construction (see
benchmarks/precision_data.py: ClapNQ gold passages among other questions' passages, WiCE
oracle chunks of supported claims among other claims' chunks), as `offline-recall calibrate
--scorer context-precision-scorer` does, prints the cross-validated numbers beside word
overlap, and writes models/NAME.context-precision-scorer.judge.json with its training data and
seed recorded in it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.precision_data import (  # noqa: E402
    DISTRACTORS,
    SEED,
    clapnq_lists,
    labelled_rows,
    wice_lists,
)
from offline_recall import DEFAULT_MODEL, ENGINES, resolve_spec  # noqa: E402
from offline_recall.judging.calibrate import SIGNAL_SETS  # noqa: E402
from offline_recall.judging.labelled import read_labelled  # noqa: E402
from offline_recall.judging.profile import save_profile  # noqa: E402
from offline_recall.runners.calibration import calibrate  # noqa: E402
from offline_recall.scorers import SCORERS  # noqa: E402

PRECISION = "context-precision-scorer"
DATA = ROOT.parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", choices=list(ENGINES), default="transformers")
    parser.add_argument("--signals", choices=list(SIGNAL_SETS), default="lexical")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    lists = clapnq_lists(args.data) + wice_lists(args.data)
    with tempfile.TemporaryDirectory() as work:
        rows = Path(work) / "relevance.jsonl"
        rows.write_text("".join(json.dumps(r) + "\n" for r in labelled_rows(lists)))
        pairs, errors = read_labelled(rows, SCORERS[PRECISION].labelled_statement)
    if errors:
        raise SystemExit(f"{len(errors)} unusable rows, first: {errors[0].message}")
    trained_on = (
        f"ClapNQ dev gold passages and WiCE dev oracle chunks, each among the {DISTRACTORS} "
        "nearest other items' (benchmarks/precision_data.py): "
        f"{len(lists)} lists, {len(pairs)} chunks; "
        f"5-fold CV; seed {SEED}"
    )
    spec = resolve_spec(args.model, engine=args.backend, scorers=[PRECISION])
    fitted = calibrate(
        spec,
        pairs,
        scorer_id=PRECISION,
        signals=args.signals,
        seed=SEED,
        trained_on=trained_on,
        compare=False,
    )
    checked = fitted.profile.cross_validated
    assert checked is not None
    spread = f" ± {checked.spread:.3f}" if checked.spread is not None else ""
    print(f"{len(pairs)} chunks of {len(lists)} lists, {args.signals} signals")
    print(f"model {spec.model_fingerprint}, engine {args.backend}")
    print("| rule | CV AUROC | CV balanced accuracy | threshold |")
    print("|---|---:|---:|---:|")
    print(
        f"| profile | {checked.auroc:.3f}{spread} | {checked.balanced_accuracy:.3f} "
        f"| {fitted.profile.threshold:.3f} |"
    )
    print(
        f"| word overlap | {checked.baseline_auroc:.3f} | "
        f"{checked.baseline_balanced_accuracy:.3f} | |"
    )
    out = args.out or ROOT / "models" / f"{args.model}.{PRECISION}.judge.json"
    save_profile(fitted.profile, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
