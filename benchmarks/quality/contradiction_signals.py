"""The judge's contradiction signals where they count: one table to compare two checkouts (before
and after a change to `polarity`, `opposite` or `quantity_mismatch`). RoSE dev and WiCE dev,
the model's claim answers replayed.

    python benchmarks/quality/contradiction_signals.py --raw FILE [--data DIR]
                                                       [--backend transformers] [--model NAME]

`--raw` holds the model's raw answer for every sentence prompt v4 sends it (the file
`extraction_rules.py --prompt-version v4 --raw FILE` writes), replayed through the scorer's own
extraction code with prompt v4's rules as `claim_parts.py` does; the benchmark refuses to run
when the file lacks a sentence (it never generates). The judge is the model's shipped profile for
prompt v4, a lexical one that makes no model call. The table's rows:

  RoSE dev end to end     Spearman with `human_recall` of the decided recall (the share of a
                          ground truth's claims whose best context piece reaches the profile's
                          threshold) / the expected recall (the mean of their probabilities), on
                          the 784 end-to-end rows, for the ground truth's sentences as claims and
                          for prompt v4's extracted claims; each on all rows and on the two
                          seeded halves of the ground truths that `claim_parts.py` splits
  signals firing          on the distinct (context piece, claim) pairs those two rows judge (a
                          context cut to the scorer's context budget, as the scorer cuts it):
                          pairs on which any contradiction signal fires, of all pairs, and the
                          pairs each signal fires on
  WiCE dev attribution    AUROC / balanced accuracy of the shipped judge per claim (max over a
                          claim's rows), whole article and oracle chunks, computed by
                          `quality.py`'s own attribution section for its "shipped" column
  behaviour cases         the cases of `tests/judging/test_judge_cases.py`, right / total per kind,
                          judged as its `test_share_right_per_kind` judges them (the scorer's
                          judge under the shipped rule, on a fake engine never asked)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` and `tests.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import quality_data as data
from benchmarks.quality.claim_parts import (
    CONTRADICTION,
    PROMPT_VERSION,
    SPLIT_SEED,
    V4_RULES,
    Row,
    _NoGeneration,
    halves,
    pair_cell,
    replay_arguments,
    score_rows,
    spearman_on,
)
from benchmarks.quality.extraction_rules import Replay, variant_scorer
from benchmarks.quality.quality import attribution, profile_note
from benchmarks.quality.quality_judges import max_over_pieces
from benchmarks.quality.quality_variants import model_variants
from benchmarks.quality.recall import Pair, extract_claims, judged, recall_scorer
from offline_recall import ContextRecallOptions, FakeEngine, create_context_recall_scorer
from offline_recall.engines import Failed
from offline_recall.judging.signals import lexical_signals
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.runs.session import Scoring
from offline_recall.text import split_sentences

Lines = list[tuple[str, str]]
"""(measure, value) lines of the table; a value of "" marks a section's title."""


def judged_pairs(
    scorer: ContextRecallScorer, pairs: Sequence[Pair]
) -> tuple[dict[Pair, float | None], list[Pair]]:
    """Each (context, claim) pair's probability at its best context piece (`max_over_pieces`,
    the scorer's own judge), and the distinct (piece, claim) pairs judged for it."""
    seen: list[Pair] = []

    def score(ps: Sequence[Pair]) -> list[float | None]:
        seen.extend(ps)
        return judged(scorer, ps)

    best = dict(zip(pairs, max_over_pieces(score, scorer, pairs), strict=True))
    return best, seen


def firings(pieces: Sequence[Pair]) -> tuple[int, dict[str, int]]:
    """Pairs on which any contradiction signal fires, and the pairs each one fires on."""
    values = [lexical_signals(piece, claim) for piece, claim in pieces]
    each = {s: sum(v.get(s, 0.0) > 0 for v in values) for s in CONTRADICTION}
    fired = sum(any(v.get(s, 0.0) > 0 for s in CONTRADICTION) for v in values)
    return fired, each


def cases() -> dict[str, tuple[int, int]]:
    """The behaviour cases right / total per kind, judged as `test_share_right_per_kind` does."""
    from tests.judging.test_judge_cases import CASES, shipped_profile

    profile = shipped_profile()
    engine = FakeEngine()
    scorer = create_context_recall_scorer(
        engine, ContextRecallOptions(context=["unused"]), profile=profile
    )
    found = scorer.assess([(c.context, c.claim) for c in CASES])
    if engine.answer_calls:
        raise SystemExit("the shipped rule asked the model: the cases are not what the test runs")
    right: dict[str, list[bool]] = {}
    for case, assessment in zip(CASES, found, strict=True):
        if isinstance(assessment, Failed):
            raise SystemExit(f"a behaviour case failed: {assessment.message}")
        ok = (assessment.probability >= scorer.threshold) == case.supported
        right.setdefault(case.kind, []).append(ok)
    return {kind: (sum(marks), len(marks)) for kind, marks in right.items()}


def main() -> None:
    started = time.perf_counter()
    args, answers = replay_arguments(__doc__)
    resolved = resolve(
        model=args.model,
        backend=args.backend,
        prompt_versions={ContextRecallScorer.id: PROMPT_VERSION},
    )
    spec = resolved.spec
    rose = data.rose_e2e(args.data / data.ROSE_E2E, None, 0)
    refs = sorted({r.reference for r in rose})
    article = data.attribution(args.data / data.WICE_ARTICLE, None, 0)
    chunks = data.attribution(args.data / data.WICE_CHUNKS, None, 0)
    targets = [r.target for r in rose]
    split = halves(rose, SPLIT_SEED)
    every = list(range(len(rose)))
    lines: Lines = []
    counts: list[str] = []
    scoring = session(resolved)
    try:
        replay = Replay(_NoGeneration(scoring.engine, args.raw), answers)
        scorer = variant_scorer(recall_scorer(Scoring.on(resolved, replay)), *V4_RULES)
        v4 = dict(zip(refs, extract_claims(scorer, refs), strict=True))
        rows = [
            Row("sentences as claims", {k: [[s] for s in split_sentences(k)] for k in refs}),
            Row("v4 claims", {k: None if c is None else [[x] for x in c] for k, c in v4.items()}),
        ]
        fired: list[tuple[str, int, int, dict[str, int]]] = []
        for row in rows:
            assert row.claims is not None
            pairs = list(
                dict.fromkeys(
                    (context, claim)
                    for r in rose
                    for parts in row.claims[r.reference] or []
                    for claim in parts
                    for context in r.contexts
                )
            )
            best, pieces = judged_pairs(scorer, pairs)
            score_rows(row, rose, best, scorer.threshold)
            fired.append((row.name, len(set(pieces)), *firings(pieces)))
            found = [c for c in row.claims.values() if c is not None]
            counts.append(
                f"{row.name}: {sum(map(len, found))} claims of {len(found)} ground truths "
                f"({len(row.claims) - len(found)} failed), {len(pairs)} (context, claim) pairs, "
                f"{len(set(pieces))} (piece, claim) pairs"
            )
        shipped = next(v for v in model_variants(spec, scoring.engine) if v.name == "shipped")
        wice = [
            (name, rs, attribution(f"attribution: WiCE, {name}", rs, [shipped]))
            for name, rs in (
                ("whole article", article),
                ("oracle chunks (max over a claim's chunks)", chunks),
            )
        ]
        threshold, digest = scorer.threshold, scorer.setup.judge_profile.digest
    finally:
        scoring.close()
    by_kind = cases()

    lines.append(("**RoSE dev end to end: Spearman with human recall, decided / expected**", ""))
    for row in rows:
        for name, picked in (("all rows", every), ("half 1", split[0]), ("half 2", split[1])):
            cell = pair_cell(
                spearman_on(targets, row.decided, picked),
                spearman_on(targets, row.expected, picked),
            )
            lines.append((f"{row.name}, {name} ({len(picked)} rows)", cell))
    lines.append(("**contradiction signals firing on RoSE (context piece, claim) pairs**", ""))
    for name, total, any_fired, each in fired:
        lines.append((f"{name}: pairs with any signal / pairs", f"{any_fired:,} / {total:,}"))
        for signal, n in each.items():
            lines.append((f"{name}: {signal}", f"{n:,}"))
    lines.append(("**WiCE dev attribution, shipped judge: AUROC / balanced accuracy**", ""))
    for name, _, section in wice:
        metrics = {k: v.get("shipped") for k, v in section.rows.items()}
        auc, ba = metrics.get("AUROC"), metrics.get("balanced accuracy")
        assert auc is None or isinstance(auc, float)
        assert ba is None or isinstance(ba, float)
        lines.append((name, pair_cell(auc, ba)))
    lines.append(("**behaviour cases (tests/judging/test_judge_cases.py), right / total**", ""))
    for kind, (right, total) in by_kind.items():
        lines.append((kind, f"{right}/{total}"))

    wice_counts = ", ".join(
        f"{name}: {len({r.group for r in rs})} claims, {len(rs)} rows" for name, rs, _ in wice
    )
    print(f"command: python {' '.join(sys.argv)}")
    print(
        f"{len(rose)} RoSE end-to-end rows ({len(refs)} ground truths; halves: ground truths "
        f"split {len(refs) // 2} / {len(refs) - len(refs) // 2}, seed {SPLIT_SEED}, rows "
        f"{len(split[0])} / {len(split[1])}); WiCE dev {wice_counts}; "
        f"{sum(n for _, n in by_kind.values())} behaviour cases; data {args.data}"
    )
    print("; ".join(counts))
    print(
        f"model {spec.model_fingerprint}, backend {args.backend}, prompts {PROMPT_VERSION} "
        f"replayed ({len(answers)} sentences in {args.raw}, none asked); judge {digest}, "
        f"threshold {threshold}; shipped judge profile: {profile_note(spec)}; "
        f"contradiction signals: {', '.join(CONTRADICTION)}; total "
        f"{time.perf_counter() - started:.0f} s"
    )
    print()
    print("| measure | value |")
    print("|---|---:|")
    for measure, value in lines:
        print(f"| {measure} | {value} |")


if __name__ == "__main__":
    main()
