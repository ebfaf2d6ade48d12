"""Build the context relevance judge profile shipped with a bundled model.

    python scripts/build_relevance_profile.py [--model NAME] [--backend transformers]
                                              [--signals lexical] [--data DIR]

Fits a profile on labelled relevance built from the dev data by construction (see
benchmarks/quality/precision_data.py): WiCE oracle chunks of supported claims among other claims'
chunks; the ClapNQ gold passages among other questions' passages; and ClapNQ's gold sentences
(relevant) beside another question's passage (not), of the even-numbered ClapNQ items only, so
that the odd-numbered ones stay out of the fit for benchmarks/quality/relevance_quality.py. Each
chunk is judged against the question and the answer (as the response), as `offline-recall
calibrate --scorer context-relevance-scorer` does; the script prints the cross-validated
numbers beside word overlap and writes models/NAME.context-relevance-scorer.judge.json with
its training data and seed recorded in it.
"""

from __future__ import annotations

import json
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

RELEVANCE = "context-relevance-scorer"


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
    args = options(__doc__.splitlines()[0])
    clapnq = clapnq_lists(args.data)[::2]
    lists = clapnq + wice_lists(args.data)
    pairs = labelled_pairs(RELEVANCE, labelled_rows(lists) + sentence_rows(args.data))
    trained_on = (
        f"ClapNQ dev gold passages (even-numbered items) and WiCE dev oracle chunks, each among "
        f"the {DISTRACTORS} nearest other items' (benchmarks/quality/precision_data.py), and the "
        "same "
        "ClapNQ items' gold sentences beside another question's passage, judged against the "
        f"question and the answer: {len(lists)} lists, {len(pairs)} chunks; 5-fold CV; "
        f"seed {SEED}"
    )
    fit_and_write(args, RELEVANCE, pairs, len(lists), trained_on, SEED)


if __name__ == "__main__":
    main()
