"""The benchmark's vLLM OpenAI server on loopback, and what its Prometheus counters say.

Every system that goes through the server is measured the same way: the prefix cache is
emptied before its run (so no system finds another's prompts cached), and the counters are
read before and after it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

PORT = 8765
URL = f"http://127.0.0.1:{PORT}/v1"

COUNTERS = {
    "vllm:request_success_total": "calls",
    "vllm:prompt_tokens_total": "prompt",
    "vllm:generation_tokens_total": "completion",
    "vllm:prefix_cache_queries_total": "cache_queries",
    "vllm:prefix_cache_hits_total": "cache_hits",
}


@dataclass(frozen=True)
class Usage:
    """What the model did for one system's run: requests, tokens and prefix-cache lookups
    (tokens looked up and tokens found; None where the engine does not report them)."""

    calls: int
    prompt: int
    completion: int
    cache_queries: int | None = None
    cache_hits: int | None = None

    @property
    def hit_rate(self) -> float | None:
        if self.cache_queries is None or self.cache_hits is None or not self.cache_queries:
            return None
        return self.cache_hits / self.cache_queries


def cpu_env() -> dict[str, str]:
    cpus = sorted(os.sched_getaffinity(0))
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_CPU_OMP_THREADS_BIND": f"{cpus[0]}-{cpus[-1]}",
    }


def start(
    folder: Path, model: str, max_tokens: int, dtype: str, log: Path
) -> subprocess.Popen[bytes]:
    """The server for the model folder, serving it as `model` (the name every client sends);
    returns once it answers its health check. The chat template the peers' requests are
    rendered with is the folder's own `chat_template.jinja` (the manifest's `chat_template`)."""
    cmd = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(folder),
        "--served-model-name",
        model,
        "--host",
        "127.0.0.1",
        "--port",
        str(PORT),
        "--dtype",
        dtype,
        "--max-model-len",
        "8192",
        "--enforce-eager",
        "--enable-prefix-caching",
        "--block-size",
        "32",
        "--seed",
        "0",
        # A server-wide cap on every completion, and greedy decoding unless a client asks otherwise.
        "--override-generation-config",
        json.dumps({"max_new_tokens": max_tokens, "temperature": 0.0}),
    ]
    # Development mode serves POST /reset_prefix_cache, which empties the cache between systems.
    env = {**cpu_env(), "VLLM_SERVER_DEV_MODE": "1"}
    server = subprocess.Popen(cmd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the vLLM server exited with {server.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"{URL.removesuffix('/v1')}/health", timeout=2):
                return server
        except OSError:
            time.sleep(1)
    server.terminate()
    raise RuntimeError(f"the vLLM server did not start in 300 s; see {log}")


def counters(url: str = URL) -> dict[str, float]:
    """The server's request, token and prefix-cache totals so far."""
    with urllib.request.urlopen(f"{url.removesuffix('/v1')}/metrics", timeout=10) as r:
        text = r.read().decode()
    totals = dict.fromkeys(COUNTERS.values(), 0.0)
    for line in text.splitlines():
        match = re.match(r"^([\w:]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if match and match[1] in COUNTERS:
            totals[COUNTERS[match[1]]] += float(match[2])
    return totals


def reset_prefix_cache(url: str = URL) -> None:
    request = urllib.request.Request(f"{url.removesuffix('/v1')}/reset_prefix_cache", method="POST")
    with urllib.request.urlopen(request, timeout=60):
        pass


def usage(before: dict[str, float], after: dict[str, float]) -> Usage:
    d = {k: round(after[k] - before[k]) for k in before}
    return Usage(
        calls=d["calls"],
        prompt=d["prompt"],
        completion=d["completion"],
        cache_queries=d["cache_queries"],
        cache_hits=d["cache_hits"],
    )
