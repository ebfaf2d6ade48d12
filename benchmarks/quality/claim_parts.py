"""Claims cut into parts: does judging smaller claims follow human recall better? RoSE dev,
the model's answers replayed.

    python benchmarks/quality/claim_parts.py --raw FILE [--data DIR] [--backend transformers]
                                             [--model NAME]

`--raw` holds the model's raw answer for every sentence prompt v4 sends it (the file
`extraction_rules.py --prompt-version v4 --raw FILE` writes); they are replayed through the
scorer's own extraction code with prompt v4's rules, and this benchmark refuses to run when
the file lacks a sentence (it never generates). The judge is the shipped lexical profile,
which makes no model call, so only the claims differ between rows. Each row is a set of claims
per ground truth:

  v4 claims (shipped)      what the scorer extracts
  sentences as claims      the ground truth's sentences
  human ACUs (oracle)      RoSE's human atomic facts of the ground truth
  sentence overlap         no model, no claims: `quality.py`'s sentence-overlap column
  v4 cut: C                the v4 claims cut by the cutter C, the parts judged as claims
  v4, mean of parts: C     the v4 claims, each one's credit the mean of its parts' (decided:
                           the share of its parts decided supported)
  sentences cut: C         the sentences cut by C, the parts judged as claims

Cutters (analysis, not the product's): `faith`, faithfulness's clause cutter (", and", ", but",
", while", ", whereas", "; "); `wide`, the same and also relative and time clauses and spaced
dashes; `dist`, coordinations distributed (a series of items, a leading pair of names, an
apposed age). A cut is kept only if every part holds at least three words.

Reported per row, on the 784 end-to-end rows: Spearman of the decided recall (the share of
claims at the judge's threshold) and of the expected recall (the mean probability) with
`human_recall`; the same on each half of a seeded split by ground truth; extraction against
the human atomic facts of the 246 decomposition texts (greedy one-to-one matcher on
content-word F1 >= 0.5, as `quality.py`); the claims' count over the distinct ground truths.
Below the table, for the best cut of the v4 claims (by expected Spearman): a bootstrap over
ground truths (rows resampled with their ground truth) of its gain over the v4 claims; how many
claims it cuts and how many words the parts of one claim repeat (content-word F1 between two
parts); and the share of (context, claim) pairs on which a contradiction signal (polarity,
opposite, quantity_mismatch) fires, before and after the cut, with how many of the pairs it
fires on before hold a claim the cut cuts at all.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np
from scipy.stats import spearmanr

from benchmarks.quality import quality_data as data
from benchmarks.quality.extraction_rules import Replay, variant_scorer
from benchmarks.quality.quality_judges import max_over_pieces
from benchmarks.quality.quality_metrics import ExtractionTally, correlations, max_or_none, word_f1
from benchmarks.quality.quality_variants import sentence_overlap
from benchmarks.quality.recall import Pair, extract_claims, judged, recall_scorer
from offline_recall import Engine
from offline_recall.engines import ENGINES, Failed
from offline_recall.judging.signals import lexical_signals
from offline_recall.metrics.faithfulness.reading import _clauses
from offline_recall.metrics.recall import ContextRecallScorer
from offline_recall.runs.score import resolve, session
from offline_recall.runs.session import Scoring
from offline_recall.scorer.claims.rules import dedupe_claims
from offline_recall.text import split_sentences

Cutter = Callable[[str], list[str]]
Claims = list[list[str]]
"""A ground truth's claims, each as its parts (one part: the claim judged whole)."""

PROMPT_VERSION = "v4"
V4_RULES = (6, True, True)
"""Prompt v4's extraction rules (single-claim words, drop trivial, drop reversed), pinned so
that the rows stay v4's whatever the model's default prompt becomes."""
CONTRADICTION = ("polarity", "opposite", "quantity_mismatch")
SPLIT_SEED = 0
BOOTSTRAP_SEED = 0
RESAMPLES = 1000

# Cutters ------------------------------------------------------------------------------------

_WORD = re.compile(r"\w+")
_MIN_PART_WORDS = 3
"""Words every part needs for a sentence to be cut."""


def _as_sentence(part: str) -> str:
    part = part.strip(" ,;:-")
    if not part:
        return part
    part = part[:1].upper() + part[1:]
    return part if part[-1:] in ".!?" else part + "."


def cut_at(boundary: re.Pattern[str]) -> Cutter:
    """A cutter at `boundary` (the boundary's words dropped), each part made a sentence; the
    sentence unchanged when a part would hold fewer than three words."""

    def cut(sentence: str) -> list[str]:
        parts = [p for p in boundary.split(sentence) if p.strip(" ,;")]
        if len(parts) == 1 or any(len(_WORD.findall(p)) < _MIN_PART_WORDS for p in parts):
            return [sentence]
        return [_as_sentence(p) for p in parts]

    return cut


_WIDE = re.compile(
    r"(?:,\s+(?:and|but|while|whereas|which|who|where|after|before|as|when|although|though)\s+"
    r"|;\s+|\s+[\u2013\u2014-]\s+)(?=\S)"
)
wide = cut_at(_WIDE)
"""Cut at ", and", ", but", ", while", ", whereas", ", which", ", who", ", where", ", after",
", before", ", as", ", when", ", although", ", though", "; " and a spaced dash: "He left, which
upset fans." -> "He left.", "Upset fans." (a relative clause's part loses its subject)."""


def faith(sentence: str) -> list[str]:
    """Faithfulness's own clause cutter (", and", ", but", ", while", ", whereas", "; ")."""
    return _clauses(sentence)


_W = r"[\w'\u2019-]+"
_NAME = r"[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)*"
_SERIES = re.compile(
    rf"(?:^|(?<=\s))((?:{_W}(?: {_W}){{0,2}})(?:, {_W}(?: {_W}){{0,2}})+),? (?:and|or) "
)
_PAIR = re.compile(rf"(?<![\w,] )\b({_NAME}) and ({_NAME})\b")
_AGE = re.compile(rf"({_NAME}), (\d{{1,3}}),")
_MAX_ITEMS = 6
_MAX_DEPTH = 3


def _series(sentence: str) -> list[str] | None:
    """One sentence per item of the first series "A, B and C" (items of up to three words):
    "pink, yellow and green ice can be seen" -> "pink ice can be seen", ...; None without one.
    The first item is as long as the longest middle one; the last runs on over capitalised
    words when the items are names, else as long as the longest middle one."""
    m = _SERIES.search(sentence)
    if not m:
        return None
    items = [x.strip() for x in m.group(1).split(",")]
    middle = items[1:]
    k = max(len(x.split()) for x in middle)
    if k > 3:
        return None
    first = " ".join(items[0].split()[-k:])
    start = m.start(1) + len(items[0]) - len(first)
    rest = sentence[m.end() :].split(" ")
    if middle[0][:1].isupper():
        n = 0
        while n < len(rest) and rest[n][:1].isupper():
            n += 1
        n = max(n, 1)
    else:
        n = k
    last, tail = " ".join(rest[:n]), " ".join(rest[n:])
    if not last:
        return None
    before, after = sentence[:start], (" " + tail if tail else "")
    return [f"{before}{item}{after}".strip() for item in (first, *middle, last)]


def distribute(sentence: str, depth: int = 0) -> list[str]:
    """Coordinations distributed, one fact a part: an apposed age ("Denis Budkov, 35, trekked
    ..." -> "Denis Budkov trekked ...", "Denis Budkov is 35."), a series of up to six items
    ("Target, Bonds and Big W are ..." -> one sentence per store), and a leading pair of names
    ("Andy Murray and Kim Sears are ..." -> one sentence each); recursively, three levels."""
    if depth > _MAX_DEPTH:
        return [sentence]
    m = _AGE.search(sentence)
    if m:
        name, age = m.group(1), m.group(2)
        rest = sentence[: m.start()] + name + sentence[m.end() :]
        return [*distribute(rest, depth + 1), f"{name} is {age}."]
    items = _series(sentence)
    if items and len(items) <= _MAX_ITEMS:
        return [p for item in items for p in distribute(item, depth + 1)]
    m = _PAIR.search(sentence)
    if m and m.start() == 0:
        tail = sentence[m.end() :]
        return [p for name in (m.group(1), m.group(2)) for p in distribute(name + tail, depth + 1)]
    return [sentence]


def chain(*cutters: Cutter) -> Cutter:
    """The cutters applied in turn, each to every part the previous one left."""

    def cut(sentence: str) -> list[str]:
        parts = [sentence]
        for cutter in cutters:
            parts = [q for p in parts for q in cutter(p)]
        return parts

    return cut


dist_wide = chain(distribute, wide)
CUTTERS: dict[str, Cutter] = {"faith": faith, "wide": wide, "dist + wide": dist_wide}


def cut_flat(cutter: Cutter, claims: Iterable[str]) -> list[str]:
    """Every claim cut, the parts as claims (repeats dropped)."""
    return dedupe_claims(q for c in claims for q in cutter(c))


# Replay without generation --------------------------------------------------------------


class _NoGeneration:
    """`engine` for everything except generation, which it refuses: the answers must be in
    `--raw` already."""

    def __init__(self, engine: Engine, raw: Path) -> None:
        self._engine = engine
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def generate_json(
        self, prompts: Sequence[Any], output: Any, *, done: Any = None
    ) -> list[str | Failed]:
        raise SystemExit(
            f"{len(prompts)} sentences of a batch have no answer in {self._raw} (first: "
            f"{prompts[0].fields[0]!r}); this benchmark replays answers and never generates: "
            "write them first with `python benchmarks/quality/extraction_rules.py "
            f"--prompt-version {PROMPT_VERSION} --raw {self._raw}`"
        )


# Scoring ------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the table: each ground truth's claims (None: extraction failed), or
    scores given directly (the baseline), and the decomposition texts' claims if any."""

    name: str
    claims: dict[str, Claims | None] | None
    extracted: list[list[str]] | None = None
    cutter: Cutter | None = None
    """The cutter a row applies to the v4 claims, if it is one."""
    decided: list[float | None] | None = None
    expected: list[float | None] | None = None


def score_rows(
    row: Row,
    rose: Sequence[data.RecallRow],
    best: dict[Pair, float | None],
    threshold: float,
) -> None:
    """The row's decided and expected recall per end-to-end row: over its claims, the share
    decided supported and the mean probability, a claim's credit the mean over its parts (a
    part's probability at its best context and piece); 0 without claims, None on a failure."""
    assert row.claims is not None
    decided: list[float | None] = []
    expected: list[float | None] = []
    for r in rose:
        claims = row.claims[r.reference]
        if claims is None:
            decided.append(None)
            expected.append(None)
            continue
        d: list[float] = []
        e: list[float] = []
        for parts in claims:
            probs = [max_or_none([best[(c, p)] for c in r.contexts]) for p in parts]
            known = [p for p in probs if p is not None]
            if len(known) < len(probs):
                break
            d.append(sum(p >= threshold for p in known) / len(known))
            e.append(sum(known) / len(known))
        else:
            decided.append(sum(d) / len(d) if d else 0.0)
            expected.append(sum(e) / len(e) if e else 0.0)
            continue
        decided.append(None)
        expected.append(None)
    row.decided, row.expected = decided, expected


def halves(rose: Sequence[data.RecallRow], seed: int) -> list[list[int]]:
    """The row indices of two halves of the ground truths (seeded shuffle)."""
    refs = sorted({r.reference for r in rose})
    random.Random(seed).shuffle(refs)
    first = set(refs[: len(refs) // 2])
    return [
        [i for i, r in enumerate(rose) if r.reference in first],
        [i for i, r in enumerate(rose) if r.reference not in first],
    ]


def spearman_on(
    targets: Sequence[float | None], scores: Sequence[float | None] | None, rows: Sequence[int]
) -> float | None:
    if scores is None:
        return None
    return correlations([targets[i] for i in rows], [scores[i] for i in rows])["Spearman"]


def cluster_bootstrap(
    targets: Sequence[float | None],
    a: Sequence[float | None],
    b: Sequence[float | None],
    groups: Sequence[str],
) -> tuple[float, float, float]:
    """Spearman(a) - Spearman(b) against `targets`, and its 95% percentile interval over
    `RESAMPLES` resamples of the groups with replacement (each with all its rows)."""
    keep = [i for i in range(len(targets)) if None not in (targets[i], a[i], b[i])]
    t = np.array([targets[i] for i in keep], dtype=float)
    x = np.array([a[i] for i in keep], dtype=float)
    y = np.array([b[i] for i in keep], dtype=float)
    names = sorted({groups[i] for i in keep})
    rows_of = [np.array([k for k, i in enumerate(keep) if groups[i] == g]) for g in names]
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    diffs = []
    for _ in range(RESAMPLES):
        idx = np.concatenate([rows_of[g] for g in rng.integers(len(names), size=len(names))])
        diffs.append(spearmanr(t[idx], x[idx]).statistic - spearmanr(t[idx], y[idx]).statistic)
    low, high = np.percentile(diffs, [2.5, 97.5])
    gain = float(spearmanr(t, x).statistic - spearmanr(t, y).statistic)
    return gain, float(low), float(high)


def part_pairs(row: Row, rose: Sequence[data.RecallRow]) -> Iterator[Pair]:
    """(context, part) for every end-to-end row, claim part and context, in order."""
    assert row.claims is not None
    for r in rose:
        for parts in row.claims[r.reference] or []:
            for part in parts:
                for context in r.contexts:
                    yield context, part


def contradicted(context: str, claim: str) -> bool:
    """Whether a contradiction signal fires on the pair (read against the whole context)."""
    signals = lexical_signals(context, claim)
    return any(signals.get(k, 0.0) > 0 for k in CONTRADICTION)


def cut_apart(cutter: Cutter, claims: Iterable[str]) -> tuple[int, int, float | None]:
    """Claims, how many of them `cutter` cuts, and the mean content-word F1 between two parts
    of one claim (how much of their words the parts repeat)."""
    claims = list(claims)
    cut = [ps for ps in map(cutter, claims) if len(ps) > 1]
    f1 = [word_f1(a, b) for ps in cut for a, b in combinations(ps, 2)]
    return len(claims), len(cut), sum(f1) / len(f1) if f1 else None


# Output -----------------------------------------------------------------------------------


def num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def pair_cell(a: float | None, b: float | None) -> str:
    return f"{num(a)} / {num(b)}"


def line(row: Row, rose: Sequence[data.RecallRow], texts: Sequence[data.DecompositionRow]) -> str:
    targets = [r.target for r in rose]
    every = list(range(len(rose)))
    cells = [row.name]
    for rows in [every, *halves(rose, SPLIT_SEED)]:
        d = spearman_on(targets, row.decided, rows)
        cells.append(pair_cell(d, spearman_on(targets, row.expected, rows)))
    if row.extracted is None:
        cells.append("n/a")
    else:
        tally = ExtractionTally()
        for claims, text in zip(row.extracted, texts, strict=True):
            tally.add(claims, text.claims)
        s = tally.scores()
        cells.append(" / ".join(num(s[k]) for k in ("precision", "recall", "F1", "count ratio")))
    if row.claims is None:
        cells.append("n/a")
    else:
        found = [c for c in row.claims.values() if c is not None]
        count = sum(len(c) for c in found)
        parts = sum(len(p) for c in found for p in c)
        cells.append(str(count) if parts == count else f"{count} ({parts} parts)")
    return "| " + " | ".join(cells) + " |"


def replay_arguments(description: str | None) -> tuple[argparse.Namespace, dict[str, str]]:
    """The command line of a benchmark that replays the model's answers (--model, --data,
    --backend, --raw), and the answers, by sentence; no answers file is refused."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--data", type=Path, default=data.DATA)
    parser.add_argument("--backend", choices=list(ENGINES), default="transformers")
    parser.add_argument(
        "--raw",
        type=Path,
        default=Path("extraction_answers.json"),
        help="the model's raw answers by sentence (extraction_rules.py --raw)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.raw.is_file():
        parser.error(f"no answers file {args.raw}: this benchmark replays answers only")
    answers: dict[str, str] = json.loads(args.raw.read_text())
    return args, answers


def main() -> None:
    args, answers = replay_arguments(__doc__)
    resolved = resolve(
        model=args.model,
        backend=args.backend,
        prompt_versions={ContextRecallScorer.id: PROMPT_VERSION},
    )
    texts = data.decomposition(args.data / data.ROSE_ACUS, None, 0)
    rose = data.rose_e2e(args.data / data.ROSE_E2E, None, 0)
    facts = {
        r["reference"]: list(r["reference_acus"])
        for r in data.read_jsonl(args.data / data.ROSE_E2E)
    }
    refs = sorted({r.reference for r in rose})
    scoring = session(resolved)
    try:
        replay = Replay(_NoGeneration(scoring.engine, args.raw), answers)
        base = recall_scorer(Scoring.on(resolved, replay))
        scorer = variant_scorer(base, *V4_RULES)
        v4 = dict(zip(refs, extract_claims(scorer, refs), strict=True))
        v4_texts = extract_claims(scorer, [t.text for t in texts])

        def of_v4(claims: Callable[[list[str]], Claims]) -> dict[str, Claims | None]:
            return {k: None if c is None else claims(c) for k, c in v4.items()}

        def texts_of_v4(cutter: Cutter) -> list[list[str]] | None:
            if any(c is None for c in v4_texts):
                return None
            return [cut_flat(cutter, c or []) for c in v4_texts]

        def sentences_cut(cutter: Cutter) -> dict[str, Claims | None]:
            return {k: [[p] for p in cut_flat(cutter, split_sentences(k))] for k in refs}

        baseline: list[float | None] = [sentence_overlap(r.reference, r.contexts) for r in rose]
        table = [
            Row(
                "v4 claims (shipped)", of_v4(lambda c: [[x] for x in c]), texts_of_v4(lambda s: [s])
            ),
            Row(
                "sentences as claims",
                {k: [[s] for s in split_sentences(k)] for k in refs},
                [split_sentences(t.text) for t in texts],
            ),
            Row("human ACUs as claims (oracle)", {k: [[f] for f in facts[k]] for k in refs}),
            Row("sentence-overlap baseline (no model)", None, decided=None, expected=baseline),
            Row(
                "v4 cut: faith",
                of_v4(lambda c: [[p] for p in cut_flat(faith, c)]),
                texts_of_v4(faith),
                cutter=faith,
            ),
            Row(
                "v4 cut: wide",
                of_v4(lambda c: [[p] for p in cut_flat(wide, c)]),
                texts_of_v4(wide),
                cutter=wide,
            ),
            Row(
                "v4 cut: dist + wide",
                of_v4(lambda c: [[p] for p in cut_flat(dist_wide, c)]),
                texts_of_v4(dist_wide),
                cutter=dist_wide,
            ),
            Row("v4, mean of parts: wide", of_v4(lambda c: [wide(x) for x in c]), cutter=wide),
            Row(
                "v4, mean of parts: dist + wide",
                of_v4(lambda c: [dist_wide(x) for x in c]),
                cutter=dist_wide,
            ),
            Row(
                "sentences cut: dist + wide",
                sentences_cut(dist_wide),
                [cut_flat(dist_wide, split_sentences(t.text)) for t in texts],
            ),
        ]
        judged_rows = [row for row in table if row.claims is not None]
        pairs = list(dict.fromkeys(p for row in judged_rows for p in part_pairs(row, rose)))

        def score(ps: Sequence[Pair]) -> list[float | None]:
            return judged(scorer, ps)

        best = dict(zip(pairs, max_over_pieces(score, scorer, pairs), strict=True))
        for row in judged_rows:
            score_rows(row, rose, best, scorer.threshold)
    finally:
        scoring.close()

    spec = resolved.spec
    print(
        f"{len(rose)} end-to-end rows ({len(refs)} ground truths), {len(texts)} decomposition "
        f"texts; model {spec.model_fingerprint}, prompts {PROMPT_VERSION} replayed "
        f"({len(answers)} sentences in {args.raw}, none asked); judge "
        f"{scorer.setup.judge_profile.digest}, threshold {scorer.threshold}; {len(pairs)} "
        f"(context, claim) pairs; halves: ground truths split {len(refs) // 2} / "
        f"{len(refs) - len(refs) // 2} (seed {SPLIT_SEED})"
    )
    print()
    print(
        "| claims judged | Spearman, decided / expected | half 1 | half 2 | "
        f"extraction: precision / recall / F1 / count ratio | claims ({len(refs)} ground truths) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for row in table:
        print(line(row, rose, texts))
    print()
    targets = [r.target for r in rose]
    groups = [r.reference for r in rose]
    shipped = table[0]
    assert shipped.decided is not None and shipped.expected is not None
    cut = max(
        (row for row in table if row.cutter is not None),
        key=lambda row: spearman_on(targets, row.expected, range(len(rose))) or -1.0,
    )
    assert cut.decided is not None and cut.expected is not None
    for kind, a, b in (
        ("decided", cut.decided, shipped.decided),
        ("expected", cut.expected, shipped.expected),
    ):
        gain, low, high = cluster_bootstrap(targets, a, b, groups)
        print(
            f"- {cut.name} minus v4 claims, Spearman {kind}: {gain:+.3f}, 95% interval "
            f"[{low:+.3f}, {high:+.3f}] ({RESAMPLES} resamples of the {len(refs)} ground "
            f"truths, seed {BOOTSTRAP_SEED})"
        )
    assert cut.cutter is not None
    every_claim = [c for claims in v4.values() for c in claims or []]
    claims, cut_claims, f1 = cut_apart(cut.cutter, every_claim)
    print(
        f"- {cut.name}: {cut_claims} of the {claims} v4 claims cut; two parts of one claim "
        f"share content words at F1 {num(f1)} on average"
    )
    for row in (shipped, cut):
        pairs_of_row = list(part_pairs(row, rose))
        fired = [p for p in pairs_of_row if contradicted(*p)]
        note = ""
        if row is shipped:
            split = sum(len(cut.cutter(claim)) > 1 for _, claim in fired)
            name = next(n for n, c in CUTTERS.items() if c is cut.cutter)
            note = f"; {split} of the {len(fired)} hold a claim that {name} cuts"
        print(
            f"- contradiction signals ({', '.join(CONTRADICTION)}) fire on "
            f"{len(fired) / len(pairs_of_row):.1%} of {len(pairs_of_row)} (context, claim) "
            f"pairs, {row.name}{note}"
        )


if __name__ == "__main__":
    main()
