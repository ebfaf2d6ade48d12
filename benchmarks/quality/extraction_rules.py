"""Which sentences need the model: the extraction rules measured on RoSE dev, model run once.

    python benchmarks/quality/extraction_rules.py [--backend vllm] [--raw FILE] [--words 3,4,...]
        [--reversed | --inventions] [--limit N] [--rose-limit N]

Every distinct sentence of the RoSE decomposition texts is sent to the model once with the
per-sentence extraction prompt (its raw answers kept in `--raw`, so a rerun makes no model
call); each rule variant then replays those answers through the scorer's own extraction code
with its rules changed: a sentence that `single_claim` accepts at N content words stands for
itself, and `drop_trivial` drops claims that carry none of their sentence. Reported per
variant: extraction precision, recall, F1 and count ratio against the human atomic facts
(greedy one-to-one matcher on content-word F1 >= 0.5, as `quality.py`), the share of
sentences that need no model call, and end to end on RoSE (784 rows) the correlations of the
shipped judge's decided and expected recall with `human_recall`. The judge is the model's
shipped profile for the prompt version asked (`--prompt-version`); a lexical profile makes
no model call, so only the claims differ between variants.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import quality_data as data
from benchmarks.quality.quality_judges import expected, recall_of_claims
from benchmarks.quality.quality_metrics import ExtractionTally, correlations
from benchmarks.quality.recall import Pair, extract_claims, judged, recall_scorer
from offline_recall import Engine
from offline_recall.engines import ENGINES, Failed
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.runs.session import Scoring
from offline_recall.scorer.claims.rules import (
    contained_claims,
    invented_quantities,
    reverses_its_text,
    single_claim,
    ungrounded_predicate,
)
from offline_recall.text import split_sentences


class Replay:
    """An engine whose claim answers come from `answers` (sentence -> raw output), asking
    `engine` only for sentences it has not seen; everything else is `engine`'s."""

    def __init__(self, engine: Engine, answers: dict[str, str]) -> None:
        self._engine = engine
        self.answers = answers
        self.asked = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def generate_json(
        self, prompts: Sequence[Any], output: Any, *, done: Any = None
    ) -> list[str | Failed]:
        missing = [p for p in prompts if p.fields[0] not in self.answers]
        if missing:
            self.asked += len(missing)
            raw = self._engine.generate_json(missing, output)
            for p, r in zip(missing, raw, strict=True):
                if isinstance(r, Failed):
                    raise RuntimeError(f"the engine failed on a sentence: {r.message}")
                self.answers[p.fields[0]] = r
        if done is not None:
            done(len(prompts))
        return [self.answers[p.fields[0]] for p in prompts]


def variant_scorer(
    base: ContextRecallScorer,
    words: int | None,
    trivial: bool,
    reversed_: bool = False,
    **rules: Any,
) -> ContextRecallScorer:
    """A fresh scorer like `base` (same engine and judge), its extraction rules changed."""
    scorer = ContextRecallScorer(base.engine, base.options, base.setup)
    changed = {"single_claim_words": words, "drop_trivial": trivial, "drop_reversed": reversed_}
    extract = scorer.prompts.extract.model_copy(update=changed | rules)
    scorer.extractor.prompts = scorer.prompts.model_copy(update={"extract": extract})
    scorer._verdicts = base._verdicts  # the same judge: a pair is judged once for all variants
    return scorer


# The rules against inventions and repeats on v4's rules: each alone, v5's two, and v5's with
# the repeat rule.
V5 = {"drop_invented_quantities": True, "min_predicate_grounding": 0.5}
INVENTIONS: dict[str, dict[str, Any]] = {
    "v4": {},
    "+ invented quantities": {"drop_invented_quantities": True},
    "+ predicate grounding 0.5": {"min_predicate_grounding": 0.5},
    "v5 (both)": V5,
    "+ contained claims": {"drop_contained": True},
    "v5 + contained claims": V5 | {"drop_contained": True},
}


def inventions(texts: list[data.DecompositionRow], found: list[list[str] | None]) -> str:
    """Claims that state a quantity, or say of their subject something, their text does not,
    and claims another claim of the text repeats with more."""
    quantity = predicate = contained = 0
    for claims, row in zip(found, texts, strict=True):
        claims = claims or []
        quantity += sum(bool(invented_quantities(c, row.text)) for c in claims)
        predicate += sum(ungrounded_predicate(c, row.text, 0.5) for c in claims)
        contained += len(contained_claims(claims))
    return f"{quantity} / {predicate} / {contained}"


def measure(
    scorer: ContextRecallScorer,
    texts: list[data.DecompositionRow],
    rose: list[data.RecallRow],
    words: int | None,
) -> dict[str, Any]:
    found = extract_claims(scorer, [r.text for r in texts])
    tally = ExtractionTally()
    for claims, row in zip(found, texts, strict=True):
        if claims is not None:
            tally.add(claims, row.claims)
    sentences = {s for r in texts for s in split_sentences(r.text)}
    single = sum(bool(words) and single_claim(s, words or 0) for s in sentences)
    rose_claims = extract_claims(scorer, [r.reference for r in rose])
    contexts = [r.contexts for r in rose]

    def pairs(ps: Sequence[Pair]) -> list[float | None]:
        return judged(scorer, ps)

    decided = recall_of_claims(pairs, scorer, rose_claims, contexts, scorer.threshold)
    mean_recall = expected(pairs, scorer, rose_claims, contexts)
    targets = [r.target for r in rose]
    return {
        **tally.scores(),
        "failed": sum(f is None for f in found),
        "no model call": single / len(sentences),
        "decided": correlations(targets, decided),
        "expected": correlations(targets, mean_recall),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--data", type=Path, default=data.DATA)
    parser.add_argument("--backend", choices=list(ENGINES), default="vllm")
    parser.add_argument("--prompt-version", default="v3", help="the prompts the model answers")
    parser.add_argument("--dtype", help="the vLLM engine's dtype [default: the engine's]")
    parser.add_argument("--raw", type=Path, default=Path("extraction_answers.json"))
    parser.add_argument("--words", default="3,4,5,6,7,8,10,12")
    parser.add_argument(
        "--reversed",
        action="store_true",
        help="only v4's rules (6 words, trivial claims dropped) without and with drop_reversed",
    )
    parser.add_argument(
        "--inventions",
        action="store_true",
        help="only v4's rules, without and with the rules against inventions and repeats",
    )
    parser.add_argument("--limit", type=int, help="decomposition texts (seeded choice)")
    parser.add_argument("--rose-limit", type=int, help="end-to-end rows (seeded choice)")
    parser.add_argument("--batch", type=int, default=32, help="texts per extraction batch")
    parser.add_argument(
        "--answered-only", action="store_true", help="only the texts --raw already answers"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    answers: dict[str, str] = json.loads(args.raw.read_text()) if args.raw.is_file() else {}
    resolved = resolve(
        model=args.model,
        backend=args.backend,
        engine_options={"dtype": args.dtype} if args.dtype else None,
        prompt_versions={ContextRecallScorer.id: args.prompt_version},
    )
    spec = resolved.spec
    scoring = session(resolved)
    replay = Replay(scoring.engine, answers)
    base = recall_scorer(Scoring.on(resolved, replay))
    texts = data.decomposition(args.data / data.ROSE_ACUS, args.limit, 0)
    rose = data.rose_e2e(args.data / data.ROSE_E2E, args.rose_limit, 0)
    if args.answered_only:
        # Only what earlier runs answered: the texts whose every sentence has its answer,
        # and the end-to-end rows of those texts.
        def answered(text: str) -> bool:
            return all(s in answers for s in split_sentences(text) or [text])

        texts = [r for r in texts if answered(r.text)]
        rose = [r for r in rose if answered(r.reference)]
    try:
        replay_all(base, replay, texts, rose, args.raw, args.batch)
        report(args, spec, base, replay, texts, rose)
    finally:
        scoring.close()


def replay_all(
    base: ContextRecallScorer,
    replay: Replay,
    texts: list[data.DecompositionRow],
    rose: list[data.RecallRow],
    raw: Path,
    batch: int,
) -> None:
    """Every sentence once before any variant, in batches of `batch` texts, each batch's
    answers kept in `raw` as soon as it is done."""
    every = list(dict.fromkeys([r.text for r in texts] + [r.reference for r in rose]))
    for start in range(0, len(every), batch):
        variant_scorer(base, None, False).extract(every[start : start + batch])
        raw.write_text(json.dumps(replay.answers, ensure_ascii=False, indent=0) + "\n")
        print(f"{len(replay.answers)} sentences answered", file=sys.stderr, flush=True)


def report(
    args: argparse.Namespace,
    spec: Any,
    base: ContextRecallScorer,
    replay: Replay,
    texts: list[data.DecompositionRow],
    rose: list[data.RecallRow],
) -> None:
    """One table: each set of rules replayed over the answers, measured the same way."""
    print(
        f"{len(texts)} decomposition texts, {len(rose)} end-to-end rows; "
        f"model {spec.model_fingerprint}, prompts {args.prompt_version}, "
        f"{len(replay.answers)} sentences answered ({replay.asked} asked now); "
        f"judge {base.setup.judge_profile.digest}"
    )
    if args.inventions:
        print(
            "| rules | precision | recall | F1 | count ratio | Spearman | Spearman, expected | "
            "MAE, expected | claims: invented quantity / ungrounded predicate / contained |"
        )
        print("|---|" + "---:|" * 8)
        for name, rules in INVENTIONS.items():
            scorer = variant_scorer(base, 6, True, True, **rules)
            m = measure(scorer, texts, rose, 6)
            found = extract_claims(scorer, [r.text for r in texts])
            d, e = m["decided"], m["expected"]
            print(
                f"| {name} | {m['precision']:.3f} | {m['recall']:.3f} | {m['F1']:.3f} | "
                f"{m['count ratio']:.3f} | {d['Spearman']:.3f} | {e['Spearman']:.3f} | "
                f"{e['MAE']:.3f} | {inventions(texts, found)} |",
                flush=True,
            )
        return
    head = (
        "| single-claim words | drop trivial | drop reversed | no model call | precision | "
        "recall | F1 | count ratio | Spearman | Pearson | Spearman, expected | "
        "Pearson, expected | claims reversing their sentence |"
    )
    print(head + "\n|" + "---|" * 3 + "---:|" * 10)
    grid: list[tuple[int | None, bool, bool]] = [(None, False, False), (None, True, False)] + [
        (int(w), t, False) for w in args.words.split(",") for t in (False, True)
    ]
    if args.reversed:
        grid = [(6, True, False), (6, True, True)]
    for words, trivial, reversed_ in grid:
        scorer = variant_scorer(base, words, trivial, reversed_)
        m = measure(scorer, texts, rose, words)
        found = extract_claims(scorer, [r.text for r in texts])
        flipped = sum(
            reverses_its_text(c, row.text)
            for claims, row in zip(found, texts, strict=True)
            for c in claims or []
        )
        d, e = m["decided"], m["expected"]
        print(
            f"| {words or 'none'} | {'yes' if trivial else 'no'} | {'yes' if reversed_ else 'no'} "
            f"| {m['no model call']:.0%} | "
            f"{m['precision']:.3f} | {m['recall']:.3f} | {m['F1']:.3f} | {m['count ratio']:.3f} | "
            f"{d['Spearman']:.3f} | {d['Pearson']:.3f} | {e['Spearman']:.3f} | "
            f"{e['Pearson']:.3f} | {flipped} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
