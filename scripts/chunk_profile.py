"""What the precision and relevance profile builders share: their options, the labelled rows
read back as pairs, and the fit, its table and the profile written under models/.

Imported by scripts/build_precision_profile.py and scripts/build_relevance_profile.py (run
from the repository root's scripts/, which put the root on `sys.path`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from offline_recall import DEFAULT_MODEL
from offline_recall.engines import ENGINES
from offline_recall.judging.labelled import LabelledPair, read_labelled
from offline_recall.judging.profile import save_profile
from offline_recall.runs.calibration import calibrate
from offline_recall.runs.calibration.fit import SIGNAL_SETS
from offline_recall.runs.resolve import resolve_spec
from offline_recall.scorer.registry import SCORERS

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def options(description: str) -> argparse.Namespace:
    """The builders' command line: --model, --backend, --signals, --data, --out."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", choices=list(ENGINES), default="transformers")
    parser.add_argument("--signals", choices=list(SIGNAL_SETS), default="lexical")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None)
    return parser.parse_args()


def labelled_pairs(scorer_id: str, rows: Sequence[Mapping[str, object]]) -> list[LabelledPair]:
    """`rows` read as the scorer's labelled pairs, as `offline-recall calibrate` reads a file;
    an unusable row stops the build."""
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "relevance.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        pairs, errors = read_labelled(path, SCORERS[scorer_id].labelled_statement)
    if errors:
        raise SystemExit(f"{len(errors)} unusable rows, first: {errors[0].message}")
    return pairs


def fit_and_write(
    args: argparse.Namespace,
    scorer_id: str,
    pairs: list[LabelledPair],
    lists: int,
    trained_on: str,
    seed: int,
) -> None:
    """Fit the scorer's profile on `pairs` for the model, print the cross-validated numbers
    beside word overlap, and write models/MODEL.SCORER.judge.json (or --out)."""
    spec = resolve_spec(args.model, engine=args.backend, scorers=[scorer_id])
    fitted = calibrate(
        spec,
        pairs,
        scorer_id=scorer_id,
        signals=args.signals,
        seed=seed,
        trained_on=trained_on,
        compare=False,
    )
    checked = fitted.profile.cross_validated
    assert checked is not None
    spread = f" ± {checked.spread:.3f}" if checked.spread is not None else ""
    print(f"{len(pairs)} chunks of {lists} lists, {args.signals} signals")
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
    out = args.out or ROOT / "models" / f"{args.model}.{scorer_id}.judge.json"
    save_profile(fitted.profile, out)
    print(f"wrote {out}")
