"""Build the context relevance judge profile shipped with a bundled model.

    python scripts/build_relevance_profile.py [--model NAME] [--backend transformers]
                                              [--signals lexical] [--data DIR]

Fits a profile on labelled relevance built from the dev data by construction (see
benchmarks/precision_data.py): WiCE oracle chunks of supported claims among other claims'
chunks; the ClapNQ gold passages among other questions' passages; and ClapNQ's gold sentences
(relevant) beside another question's passage (not), of the even-numbered ClapNQ items only, so
that the odd-numbered ones stay out of the fit for benchmarks/relevance_quality.py. Each
chunk is judged against the question and the answer (as the response), as `offline-recall
calibrate --scorer context-relevance-scorer` does; the script prints the cross-validated
numbers beside word overlap and writes models/NAME.context-relevance-scorer.judge.json with
its training data and seed recorded in it.
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

RELEVANCE = "context-relevance-scorer"
DATA = ROOT.parent / "shared" / "data"


def sentence_rows(data: Path) -> list[dict[str, object]]:
    """Each even-numbered ClapNQ item's gold sentences (relevant) and another question's
    passage (not), judged against its question and reference answer."""
    path = data / "clapnq" / "e2e_answerable_dev.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][::2]
    return [
        {
            "group": f"{item['id']}#s{k}#{label}",
            "question": item["question"],
            "answer": item["reference"],
            "chunk": chunk,
            "label": label,
        }
        for item in items
        for label, field in ((1, "contexts_gold_sentences"), (0, "contexts_other_question_passage"))
        for k, chunk in enumerate(item[field])
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--backend", choices=list(ENGINES), default="transformers")
    parser.add_argument("--signals", choices=list(SIGNAL_SETS), default="lexical")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    clapnq = clapnq_lists(args.data)[::2]
    lists = clapnq + wice_lists(args.data)
    with tempfile.TemporaryDirectory() as work:
        rows = Path(work) / "relevance.jsonl"
        labelled = labelled_rows(lists) + sentence_rows(args.data)
        rows.write_text("".join(json.dumps(r) + "\n" for r in labelled))
        pairs, errors = read_labelled(rows, SCORERS[RELEVANCE].labelled_statement)
    if errors:
        raise SystemExit(f"{len(errors)} unusable rows, first: {errors[0].message}")
    trained_on = (
        f"ClapNQ dev gold passages (even-numbered items) and WiCE dev oracle chunks, each among "
        f"the {DISTRACTORS} nearest other items' (benchmarks/precision_data.py), and the same "
        "ClapNQ items' gold sentences beside another question's passage, judged against the "
        f"question and the answer: {len(lists)} lists, {len(pairs)} chunks; 5-fold CV; "
        f"seed {SEED}"
    )
    spec = resolve_spec(args.model, engine=args.backend, scorers=[RELEVANCE])
    fitted = calibrate(
        spec,
        pairs,
        scorer_id=RELEVANCE,
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
    out = args.out or ROOT / "models" / f"{args.model}.{RELEVANCE}.judge.json"
    save_profile(fitted.profile, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
