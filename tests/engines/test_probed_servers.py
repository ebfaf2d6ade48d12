"""The server engine probes a model server once: a later start against the same server asks
only what it serves before scoring.

A scripted server on loopback plays vLLM's OpenAI server (constrained answers under
`structured_outputs`, or a GBNF `grammar`) or one that ignores constraints; the pinned model is
a tokenizer alone, which is all the server engine loads. No model runs.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall import ContextRecallOptions, create_context_recall_scorer, create_engine
from offline_recall.cli import main
from offline_recall.engines import probed
from offline_recall.engines.base import Prompt
from offline_recall.engines.manifests import ModelManifest, PinnedFile, Source, load_manifest
from offline_recall.engines.openai import PROBE_JSON
from offline_recall.errors import ConfigurationError

from ..servers import Loopback, Reply, Request

WORDS = ["<unk>", "yes", "no", "The", "Eiffel", "Tower", "is", "in", "Paris", "."]
CLAIMS = '{"claims": ["The Eiffel Tower is in Paris.", "The Eiffel Tower was built in 1889."]}'
RUN = {  # one sentence of two claims: it is extracted, then each claim is judged
    "ground_truth": "The Eiffel Tower in Paris was built in 1889 and is 330 metres tall.",
    "output": None,
}
OPTIONS = ContextRecallOptions(context=["The tower stands in Paris."])


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> ModelManifest:
    """The embedded model's manifest on a tokenizer of a few words, pinned in a folder."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tokenizer")
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<|im_start|>", "<|im_end|>"])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", eos_token="<|im_end|>"
    )
    tokenizer.save_pretrained(folder)
    files = tuple(
        PinnedFile(path=name, sha256=hashlib.sha256((folder / name).read_bytes()).hexdigest())
        for name in ("tokenizer.json", "tokenizer_config.json")
    )
    source = Source(kind="folder", path=str(folder), install="built by the test")
    return load_manifest().model_copy(
        update={"name": "words", "format": "safetensors", "source": source, "files": files}
    )


@dataclass
class Scripted:
    """A server serving one model, answering constrained requests as a constraining server
    does, or (`constrains = False`) freely, as one ignoring the fields it does not know."""

    model: dict[str, Any] = field(
        default_factory=lambda: {"id": "words", "owned_by": "vllm", "max_model_len": 2048}
    )
    constrains: bool = True

    def __call__(self, request: Request) -> Reply:
        if request.method == "GET":
            return Reply.of({"object": "list", "data": [self.model]})
        asked = kind(request)
        text, top = "Hello! How can I help you today?", {"Hello": -0.05, "Hi": -3.0}
        if self.constrains:
            text = {"probe": PROBE_JSON, "claims": CLAIMS}.get(asked, "yes")
            top = {"yes": -0.2, "no": -1.7}
        return Reply.of({"choices": [{"text": text, "logprobs": {"top_logprobs": [top]}}]})


def kind(request: Request) -> str:
    """What a request to the scripted server asks: the model list, a probe's JSON, claims
    (the first scoring request of a run) or a choice (a probe's or a verdict's)."""
    if request.method == "GET":
        return "models"
    body = request.json()
    constraint = body.get("structured_outputs") or {}
    json_ask = str(constraint.get("json") or body.get("grammar") or body.get("response_format"))
    if "probe" in json_ask:
        return "probe"
    if "claims" in json_ask:
        return "claims"
    return "choice"


def before_scoring(seen: list[Request]) -> list[str]:
    """What the server was asked before a run's first scoring request (its first claims)."""
    kinds = [kind(r) for r in seen]
    return kinds[: kinds.index("claims")] if "claims" in kinds else kinds


OPTIONS_OF = {"check": "none", "concurrency": 1}


def start(manifest: ModelManifest, server: Loopback) -> Any:
    return create_engine("openai", manifest, {"base_url": server.url, **OPTIONS_OF})


def scorer(manifest: ModelManifest, server: Loopback) -> Any:
    options = {"base_url": server.url, **OPTIONS_OF}
    return create_context_recall_scorer(manifest, OPTIONS, engine="openai", engine_options=options)


@pytest.fixture(autouse=True)
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own; the verdicts' folder in it."""
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "servers"


def remembered(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def test_a_run_probes_a_new_server_then_a_later_run_asks_only_what_it_serves(
    manifest: ModelManifest, folder: Path
) -> None:
    with Loopback(Scripted()) as server:
        first = scorer(manifest, server).run(RUN)
        asked_first = before_scoring(server.seen)
        server.seen.clear()
        second = scorer(manifest, server).run(RUN)
        asked_second = before_scoring(server.seen)
    assert sorted(asked_first) == ["choice", "models", "probe"]
    assert asked_second == ["models"]
    assert first.status == second.status == "ok"
    assert first == second
    assert len(remembered(folder)) == 1


def test_a_remembered_server_is_asked_in_its_dialect(manifest: ModelManifest) -> None:
    with Loopback(Scripted()) as server:
        start(manifest, server)
        server.seen.clear()
        engine = start(manifest, server)
        question = Prompt(({"role": "user", "content": "Paris is in France ."},))
        found = engine.answer_probabilities([question], ("yes", "no"))
    assert [kind(r) for r in server.seen] == ["models", "choice"]
    body = server.seen[1].json()
    assert body["structured_outputs"] == {"choice": ["yes", "no"]}
    assert all(isinstance(i, int) for i in body["prompt"])  # vLLM's dialect: token ids
    assert engine.dialect.name == "vllm"
    assert found[0] == pytest.approx((0.8176, 0.1824), abs=1e-4)  # 1 : e^-1.5, renormalised


@pytest.mark.parametrize(
    "change",
    [
        {"model": {"max_model_len": 4096}},
        {"model": {"owned_by": "llamacpp"}},
        {"model": {"root": "/srv/models/words"}},
        {"version": "99.0.0"},
        {"dialects": "0" * 64},
    ],
)
def test_another_server_identity_is_probed_again(
    manifest: ModelManifest, folder: Path, change: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Scripted()
    with Loopback(script) as server:
        start(manifest, server)
        server.seen.clear()
        script.model = {**script.model, **change.get("model", {})}
        if "version" in change:
            monkeypatch.setattr(probed, "__version__", change["version"])
        if "dialects" in change:
            monkeypatch.setattr(probed, "dialects_digest", lambda: change["dialects"])
        engine = start(manifest, server)
    assert sorted(kind(r) for r in server.seen) == ["choice", "models", "probe"]
    owner = script.model["owned_by"]
    assert engine.dialect.name == ("vllm" if owner == "vllm" else "llama.cpp")
    assert len(remembered(folder)) == 2


def test_another_address_is_probed_again(manifest: ModelManifest) -> None:
    with Loopback(Scripted()) as one, Loopback(Scripted()) as other:
        start(manifest, one)
        start(manifest, other)
    assert sorted(kind(r) for r in other.seen) == ["choice", "models", "probe"]


def test_a_refused_server_is_not_remembered(manifest: ModelManifest, folder: Path) -> None:
    with Loopback(Scripted(constrains=False)) as server:
        for _ in range(2):
            server.seen.clear()
            with pytest.raises(ConfigurationError, match="cannot constrain"):
                start(manifest, server)
            # Every dialect is probed again: vLLM's, llama.cpp's and the OpenAI API's.
            assert sorted(kind(r) for r in server.seen) == [
                "choice", "choice", "choice", "models", "probe", "probe", "probe",
            ]  # fmt: skip
            assert remembered(folder) == []


def test_a_remembered_server_that_stopped_constraining_fails_its_rows(
    manifest: ModelManifest,
) -> None:
    script = Scripted()
    with Loopback(script) as server:
        scorer(manifest, server)
        server.seen.clear()
        script.constrains = False  # the same server, now ignoring what it is asked
        found = scorer(manifest, server).run(RUN)
        asked = before_scoring(server.seen)
    assert asked == ["models"]
    assert found.status == "error"
    assert found.score is None
    assert found.error


def test_an_unreadable_verdict_is_probed_again(manifest: ModelManifest, folder: Path) -> None:
    with Loopback(Scripted()) as server:
        start(manifest, server)
        (kept,) = remembered(folder)
        kept.write_text("{not json")
        server.seen.clear()
        start(manifest, server)
    assert sorted(kind(r) for r in server.seen) == ["choice", "models", "probe"]
    assert probed.ProbedServer.model_validate_json(kept.read_text()).dialect == "vllm"


def test_the_cache_command_shows_and_forgets_probed_servers(
    manifest: ModelManifest, folder: Path
) -> None:
    runner = CliRunner()
    with Loopback(Scripted()) as server:
        start(manifest, server)
        info = runner.invoke(main, ["cache", "info"])
        assert info.exit_code == 0, info.output
        assert f"servers:  1 probed, {remembered(folder)[0].stat().st_size} bytes" in info.output
        assert f"{server.url} completions words: vllm" in info.output
        cleared = runner.invoke(main, ["cache", "clear"])
        assert cleared.exit_code == 0, cleared.output
        assert f"forgot 1 probed servers in {folder}" in cleared.output
        assert "servers:  0 probed" in runner.invoke(main, ["cache", "info"]).output
        server.seen.clear()
        start(manifest, server)
    assert sorted(kind(r) for r in server.seen) == ["choice", "models", "probe"]
