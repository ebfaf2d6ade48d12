"""Build the context precision judge profile shipped with a bundled model.

    python scripts/build_precision_profile.py [--model NAME] [--backend transformers]
                                              [--signals lexical] [--data DIR]

Fits a profile on labelled relevance built from the dev data by construction (see
benchmarks/quality/precision_data.py: ClapNQ gold passages among other questions' passages, WiCE
oracle chunks of supported claims among other claims' chunks), as `offline-recall calibrate
--scorer context-precision-scorer` does, prints the cross-validated numbers beside word
overlap, and writes models/NAME.context-precision-scorer.judge.json with its training data and
seed recorded in it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.quality.precision_data import (  # noqa: E402
    DISTRACTORS,
    SEED,
    clapnq_lists,
    labelled_rows,
    wice_lists,
)
from scripts.chunk_profile import fit_and_write, labelled_pairs, options  # noqa: E402

PRECISION = "context-precision-scorer"


def main() -> None:
    args = options(__doc__.splitlines()[0])
    lists = clapnq_lists(args.data) + wice_lists(args.data)
    pairs = labelled_pairs(PRECISION, labelled_rows(lists))
    trained_on = (
        f"ClapNQ dev gold passages and WiCE dev oracle chunks, each among the {DISTRACTORS} "
        "nearest other items' (benchmarks/quality/precision_data.py): "
        f"{len(lists)} lists, {len(pairs)} chunks; "
        f"5-fold CV; seed {SEED}"
    )
    fit_and_write(args, PRECISION, pairs, len(lists), trained_on, SEED)


if __name__ == "__main__":
    main()
