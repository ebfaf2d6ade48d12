#!/usr/bin/env bash
# The transformers engine on a GPU (-o device=cuda) against the same machine's CPU, end to end
# through `offline-recall score`, on randomly initialised weights of the embedded model's
# architecture: speed does not depend on weight values, and weights this size need not travel.
#
#     bash scripts/gpu_check.sh OUT_DIR
#
# Needs torch with CUDA and transformers on the GPU machine, and the project's other
# dependencies importable (on a machine that cannot install packages, put them in a folder
# made elsewhere with `pip install --target DIR --python-version X.Y --only-binary=:all:
# --no-deps ...` and set PYTHONPATH to it). Needs the embedded model's config, tokenizer and
# chat template in $SMOLLM2_FILES (a folder; `offline-recall models install` writes them under
# the cache's models/ folder).
set -euo pipefail
out=${1:?usage: gpu_check.sh OUT_DIR}
files=${SMOLLM2_FILES:?set SMOLLM2_FILES to the folder of the embedded model config and tokenizer}
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH="${PYTHONPATH:-}:$PWD"
weights=$(mktemp -d)
python3 - "$files" "$weights" <<'PY'
import shutil, sys
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForCausalLM

src, out = Path(sys.argv[1]), Path(sys.argv[2])
torch.manual_seed(0)
AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(src)).save_pretrained(out)
for name in ["tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"]:
    shutil.copy(src / name, out / name)
PY
cli() { python3 -c 'import sys; from offline_recall.cli import main; sys.argv[0] = "offline-recall"; main()' "$@"; }
cli models pin "$weights" --name random-smollm2 --out "$out/random-smollm2.toml"
for device in cuda cpu; do
    echo "== score on $device"
    cli score offline_recall/examples/example.jsonl --model "$out/random-smollm2.toml" \
        -o device=$device --no-cache --out "$out/example-$device.jsonl" | tail -n 9
done
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
rows = {d: [json.loads(line) for line in (out / f"example-{d}.jsonl").open()] for d in ("cuda", "cpu")}
verdicts = {d: [v for r in rows[d] for v in r["results"]["context-recall-scorer"].get("verdicts", [])] for d in rows}
same = [a["claim"] for a in verdicts["cuda"]] == [b["claim"] for b in verdicts["cpu"]]
diff = max(abs(a["probability"] - b["probability"]) for a, b in zip(verdicts["cuda"], verdicts["cpu"]))
flips = sum(a["supported"] != b["supported"] for a, b in zip(verdicts["cuda"], verdicts["cpu"]))
print(f"verdicts {len(verdicts['cuda'])}, same claims {same}, max |P(cuda) - P(cpu)| {diff:.1e}, decisions flipped {flips}")
PY
