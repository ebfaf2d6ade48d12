"""The reading judge's weights: bfloat16 against int8, on the same rows and the same pairs.

    python benchmarks/speed/light_judge.py [--model qwen2.5-coder-1.5b-instruct]
        [--weights bfloat16,int8] [--rows 100] [--backend vllm]
        [--pairs WEIGHTS=FILE ...] [--measured WEIGHTS=FILE ...]

For each weights (`bfloat16`: the GGUF dequantised, as converted before; `int8`: the decoder's
linear weights in int8 per output channel, see offline_recall/engines/int8.py), a manifest that
says so is written beside the model's and `ci_budget.py` scores the same RoSE dev rows end to
end in a process of its own (so peak memory is that run's alone): load, seconds a verdict the
model was asked, items/s, peak memory, Spearman with human recall. `--keep FOLDER` keeps each
run's measurements there (WEIGHTS.json); `--measured WEIGHTS=FILE` reads them instead of
running again.

`--pairs WEIGHTS=FILE` reads what `scripts/record_signals.py` recorded with that manifest
(WiCE oracle-chunk and KLUE-NLI dev pairs, their made negatives and the behaviour cases) and
adds the judge's agreement with the first weights named: the share of pairs decided the same
by the model's own rule, the largest and mean change of P(yes), the AUROC on WiCE and KLUE
(each claim's best chunk), and the behaviour cases right per kind.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import fmean

if __package__ in (None, ""):  # run as a script: make `benchmarks.*` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.judge_choice import _best, _rule
from benchmarks.quality.quality_metrics import auroc
from offline_recall.judging.behaviour import KINDS, cases
from offline_recall.judging.korean import has_hangul
from offline_recall.judging.negatives import kind_of

ROOT = Path(__file__).resolve().parents[2]
CI_BUDGET = ROOT / "benchmarks" / "speed" / "ci_budget.py"
Row = dict[str, object]


def variant_manifest(model: str, weights: str, folder: Path) -> Path:
    """A copy of the model's manifest whose converted weights are `weights`."""
    lines = (ROOT / "models" / f"{model}.toml").read_text("utf-8").splitlines()
    kept = [line for line in lines if not line.startswith("quantize =")]
    at = next(i for i, line in enumerate(kept) if line.startswith("convert_dtype ="))
    if weights == "int8":
        kept.insert(at + 1, 'quantize = "int8"')
    elif weights != "bfloat16":
        raise SystemExit(f"unknown weights {weights!r}: bfloat16 or int8")
    path = folder / f"{model}.{weights}.toml"
    path.write_text("\n".join(kept) + "\n", "utf-8")
    return path


def measure(manifest: Path, rows: int, backend: str, out: Path) -> dict[str, object]:
    """One end-to-end run of `ci_budget.py` on the manifest, in a process of its own."""
    command = [sys.executable, str(CI_BUDGET), "--model", str(manifest), "--rows", str(rows)]
    subprocess.run([*command, "--backend", backend, "--json", str(out)], check=True)
    measured: dict[str, object] = json.loads(out.read_text("utf-8"))
    return measured


def speed_row(weights: str, m: dict[str, object]) -> str:
    stages: dict[str, float] = m["stages_s"]  # type: ignore[assignment]
    verdicts = stages.get("verdicts judged", 0.0)
    asked = int(m["asked"])  # type: ignore[call-overload]
    decided: dict[str, object] = m["agreement"]["decided"]  # type: ignore[index]
    return (
        f"| {m['engine']} | {weights} | {float(m['peak_gib']):.2f} | {float(m['load_s']):.1f} "  # type: ignore[arg-type]
        f"| {stages.get('sentences extracted', 0.0):.1f} | {verdicts / max(asked, 1):.3f} "
        f"| {float(m['end_to_end_s']):.1f} | {float(m['items_per_s']):.3f} "  # type: ignore[arg-type]
        f"| {m['failed']} | {float(decided['spearman']):.3f} {decided['interval']} |"  # type: ignore[arg-type]
    )


def _read(path: Path) -> dict[str, Row]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return {str(r["key"]): r for r in rows}


def agreement(model: str, reference: dict[str, Row], other: dict[str, Row]) -> list[str]:
    """Cells comparing `other`'s recording with `reference`'s on the pairs both hold."""
    rule, threshold = _rule(model)
    common = [k for k in reference if k in other]

    def decided(r: Row) -> bool:
        return rule(str(r["claim"]), r["signals"]) >= threshold  # type: ignore[arg-type]

    same = sum(decided(reference[k]) == decided(other[k]) for k in common)
    change = [
        abs(float(reference[k]["signals"]["model"]) - float(other[k]["signals"]["model"]))  # type: ignore[index]
        for k in common
    ]
    return [
        f"{same}/{len(common)} ({same / len(common):.1%})",
        f"{max(change):.3f}",
        f"{fmean(change):.4f}",
    ]


def quality(model: str, recorded: dict[str, Row]) -> list[str]:
    """AUROC on WiCE and KLUE (each claim's best chunk) and the behaviour cases right per kind."""
    rule, threshold = _rule(model)
    rows = list(recorded.values())
    pairs = [r for r in rows if not str(r["group"]).startswith("case:")]
    best = _best(pairs, rule)
    labels = {str(r["group"]): bool(r["label"]) for r in pairs}
    claims = {str(r["group"]): str(r["claim"]) for r in pairs}
    cells = []
    for korean in (False, True):
        groups = [g for g in labels if kind_of(g) is None and has_hangul(claims[g]) == korean]
        found = auroc([float(labels[g]) for g in groups], [best[g] for g in groups])
        cells.append("-" if found is None else f"{found:.3f} ({len(groups)})")
    by_case = {(r["context"], r["claim"]): r for r in rows if str(r["group"]).startswith("case:")}
    every = [c for c in cases() if (c.context, c.claim) in by_case]
    right: dict[str, list[bool]] = {kind: [] for kind in KINDS}
    for c in every:
        p = rule(c.claim, by_case[(c.context, c.claim)]["signals"])  # type: ignore[arg-type]
        right[c.kind].append((p >= threshold) == c.supported)
    cells.append(", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in right.items() if v))
    return cells


def _named(given: list[str]) -> dict[str, Path]:
    return {name: Path(path) for name, _, path in (g.partition("=") for g in given)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--weights", default="bfloat16,int8")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--backend", default="vllm")
    parser.add_argument("--pairs", action="append", default=[], metavar="WEIGHTS=FILE")
    parser.add_argument("--measured", action="append", default=[], metavar="WEIGHTS=FILE")
    parser.add_argument("--manifests", type=Path, help="write the variant manifests here only")
    parser.add_argument(
        "--keep", type=Path, help="keep each run's measurements here (WEIGHTS.json)"
    )
    args = parser.parse_args()
    weights = args.weights.split(",")
    if args.manifests is not None:
        args.manifests.mkdir(parents=True, exist_ok=True)
        for w in weights:
            print(variant_manifest(args.model, w, args.manifests))
        return
    measured = {w: json.loads(p.read_text("utf-8")) for w, p in _named(args.measured).items()}
    with tempfile.TemporaryDirectory() as folder:
        kept = args.keep or Path(folder)
        kept.mkdir(parents=True, exist_ok=True)
        for w in weights:
            if w not in measured:
                manifest = variant_manifest(args.model, w, Path(folder))
                measured[w] = measure(manifest, args.rows, args.backend, kept / f"{w}.json")
    print(f"{args.model}, {args.rows} RoSE dev rows end to end (ci_budget.py), one process a row")
    print()
    print(
        "| engine | weights | peak memory GiB | load s | claim lists s | s a verdict asked "
        "| end to end s | items/s | failed rows | Spearman decided [95%] |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for w in weights:
        print(speed_row(w, measured[w]))
    recorded = {w: _read(p) for w, p in _named(args.pairs).items()}
    if not recorded:
        return
    reference_name = next(iter(recorded))
    print()
    print(
        f"Judging the same recorded dev pairs and behaviour cases; agreement with {reference_name}"
    )
    print()
    print(
        "| weights | same decisions | largest change of P(yes) | mean change | WiCE AUROC (claims) "
        "| KLUE AUROC (claims) | behaviour cases right |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for w, rows in recorded.items():
        cells = agreement(args.model, recorded[reference_name], rows) + quality(args.model, rows)
        print(f"| {w} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
