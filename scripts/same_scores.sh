#!/usr/bin/env bash
# Scores that must not move under a redesign: the example and the first 50 rows of RoSE dev,
# with all four built-in scorers, on the fake engine, transformers and vLLM in
# process. Run it on the tree before and after a change and compare the folders:
#
#     scripts/same_scores.sh OUT_BEFORE        # on the old tree
#     scripts/same_scores.sh OUT_AFTER         # on the new tree
#     for f in OUT_BEFORE/*.jsonl; do cmp "$f" "OUT_AFTER/${f##*/}"; done
#
# PYTHON (default .venv/bin/python) runs the command line; set PYTHONPATH to score another
# checkout with the same environment; DATA (default ../shared/data) holds the labelled data. ENGINES (default "fake transformers vllm") picks engines.
set -euo pipefail
out=${1:?usage: scripts/same_scores.sh OUT_DIR}
python=${PYTHON:-.venv/bin/python}
engines=${ENGINES:-fake transformers vllm}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
rose="$out/rose50.input.jsonl"
head -n 50 "${DATA:-$here/../shared/data}/rose/e2e_acu_recall_dev.jsonl" > "$rose"
# The example with its ground truth as the output too, so that faithfulness and relevance read one.
example="$out/example.input.jsonl"
"$python" -c 'import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line); row["output"] = row["groundTruth"]; print(json.dumps(row, ensure_ascii=False))' \
  "$here/offline_recall/examples/example.jsonl" > "$example"
scorers=context-recall-scorer,context-precision-scorer,faithfulness-scorer,context-relevance-scorer
export HF_HUB_OFFLINE=1
for engine in $engines; do
  extra=()
  if [ "$engine" = vllm ]; then extra=(-o dtype=float32); fi
  for data in example rose50; do
    if [ "$data" = example ]; then
      input="$example"; map=()
    else
      input="$rose"; map=(--map ground_truth=reference --map context=contexts --map output=reference --map input=reference)
    fi
    store=$(mktemp -d)
    "$python" -c 'import sys; from offline_recall.cli import main; sys.exit(main())' \
      score "$input" --backend "$engine" "${extra[@]}" --scorer "$scorers" "${map[@]}" \
      --no-cache --store "$store/run.sqlite" --out "$out/$engine-$data.jsonl" > "$out/$engine-$data.log" 2>&1 \
      || echo "$engine $data: exit $? (see $out/$engine-$data.log)"
    rm -rf "$store"
  done
done
