"""What a model server answers is read, never trusted: log-probabilities that cannot be ones are
the row's error with one readable reason, and a tie is 0.5 however small its log-probabilities;
an answer is read within one deadline and never past a size cap.

A scripted server on loopback plays vLLM's OpenAI server, as in test_probed_servers.py; the
pinned model is a tokenizer alone. No model runs.
"""

from __future__ import annotations

import json
import math
import time
import tracemalloc
from dataclasses import dataclass, field
from typing import Any

import pytest

from offline_recall.engines import engine_kind
from offline_recall.engines.base import Failed, Prompt
from offline_recall.engines.manifests import ModelManifest
from offline_recall.engines.openai import PROBE_JSON, OpenAIOptions
from offline_recall.engines.served import inspect_served
from offline_recall.engines.server import Server, ServerUnavailable
from offline_recall.errors import ConfigurationError

from ..servers import Loopback, Reply, Request
from .test_probed_servers import CLAIMS, RUN, Scripted, kind, scorer, start
from .test_probed_servers import folder as folder  # each test's own cache folder (autouse)
from .test_probed_servers import manifest as manifest

FAIR = {"yes": -0.2, "no": -1.7}
"""What the probe's choice is answered with: a server that constrains its answers."""


@dataclass
class Verdicts(Scripted):
    """The scripted server, answering each verdict with the top log-probabilities `top`."""

    top: Any = field(default_factory=lambda: dict(FAIR))

    def __call__(self, request: Request) -> Reply:
        if request.method == "GET":
            return Reply.of({"object": "list", "data": [self.model]})
        asked = kind(request)
        text = {"probe": PROBE_JSON, "claims": CLAIMS}.get(asked, "yes")
        top = FAIR if asked == "probe" else self.top
        # json.dumps writes NaN and Infinity, and a server's JSON parser reads them back.
        body = json.dumps({"choices": [{"text": text, "logprobs": {"top_logprobs": [top]}}]})
        return Reply(200, body.encode())


QUESTION = Prompt(({"role": "user", "content": "Paris is in France ."},))


def verdict(manifest: ModelManifest, top: Any) -> tuple[float, ...] | Failed:
    """The yes/no probabilities the engine reads from a server answering `top`."""
    script = Verdicts()
    with Loopback(script) as server:
        engine = start(manifest, server)
        script.top = top
        (found,) = engine.answer_probabilities([QUESTION], ("yes", "no"))
    return found


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ({"yes": -1e6, "no": -1e6}, (0.5, 0.5)),
        ({"yes": -1000.0, "no": -1001.0}, (1 / (1 + math.exp(-1)), 1 / (1 + math.e))),
        ({"yes": -math.inf, "no": -0.1}, (0.0, 1.0)),
        ({"yes": 1e-6, "no": -math.log(3)}, (0.75, 0.25)),  # a probability of 1, rounded up
        ({"yes": -2.0, "no": -2}, (0.5, 0.5)),
    ],
)
def test_log_probabilities_are_renormalised_over_the_answers_even_when_tiny(
    manifest: ModelManifest, top: dict[str, float], expected: tuple[float, float]
) -> None:
    found = verdict(manifest, top)
    assert isinstance(found, tuple)
    assert found == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("top", "why"),
    [
        ({"yes": 5.0, "no": -1.0}, "a log-probability is 5.0; it must be a number at most 0"),
        ({"yes": 1000.0, "no": 0.0}, "a log-probability is 1000.0; it must be a number at most 0"),
        ({"yes": math.inf, "no": -1.0}, "a log-probability is inf; it must be a number at most 0"),
        ({"yes": math.nan, "no": -1.0}, "a log-probability is nan; it must be a number at most 0"),
        ({"yes": True, "no": False}, "a log-probability is True, not a number"),
        ({"yes": "-0.1", "no": -1.0}, "a log-probability is '-0.1', not a number"),
        ({"yes": None, "no": -1.0}, "a log-probability is None, not a number"),
        ({"yes": 10**400, "no": -1.0}, "it must be a number at most 0"),
        (
            {"yes": -math.inf, "no": -math.inf},
            "the server gave every answer a log-probability of -inf",
        ),
    ],
)
def test_log_probabilities_that_cannot_be_ones_are_one_readable_reason(
    manifest: ModelManifest, top: dict[str, Any], why: str
) -> None:
    found = verdict(manifest, top)
    assert isinstance(found, Failed)
    assert why in found.message
    assert "Error" not in found.message and "\n" not in found.message


def test_a_row_judged_on_a_wrong_log_probability_is_its_error_with_the_reason(
    manifest: ModelManifest,
) -> None:
    script = Verdicts()
    with Loopback(script) as server:
        built = scorer(manifest, server)
        script.top = {"yes": 2.5, "no": -1.0}
        found = built.run(RUN)
    assert found.status == "error" and found.score is None
    assert found.error == (
        "malformed response from the server: a log-probability is 2.5; it must be a number "
        "at most 0"
    )


# How much and how long an answer is read ---------------------------------------------------

LIST = json.dumps({"object": "list", "data": [{"id": "words"}]}).encode()


def _slow_headers(pace: float) -> Loopback:
    """A server that sends each byte of its status line and headers `pace` seconds apart."""
    return Loopback(lambda _: Reply(200, LIST, head_pace=pace))


def test_a_get_from_a_server_dripping_its_headers_ends_at_the_timeout() -> None:
    with _slow_headers(0.02) as server:  # about 8 s of headers, each byte well within 1 s
        started = time.monotonic()
        with pytest.raises(ServerUnavailable, match="no whole answer within 1 s"):
            Server.at(server.url, timeout=1.0).get("/models")
        assert time.monotonic() - started < 2.5


def test_a_post_to_a_server_dripping_its_headers_ends_at_the_timeout() -> None:
    with _slow_headers(0.02) as server:
        started = time.monotonic()
        (found,) = Server.at(server.url, timeout=1.0, retries=0).post_all("/completions", [{}])
        assert time.monotonic() - started < 2.5
    assert isinstance(found, Failed) and found.transient
    assert found.message == "no whole answer within 1 s (after 0 retries)"


def _answer_of(size: int) -> bytes:
    """A well-formed completion of about `size` bytes."""
    return json.dumps({"choices": [{"text": "a" * size}]}).encode()


@pytest.mark.parametrize("declared", [True, False])
def test_an_answer_past_the_size_cap_is_the_rows_error_and_is_not_read_past_it(
    declared: bool,
) -> None:
    body = _answer_of(64 * 2**20)
    with Loopback(lambda _: Reply(200, body, declared=declared)) as server:
        post = Server.at(server.url, retries=0, max_answer_mib=1).post_all
        tracemalloc.start()  # the body above is the server's, allocated before
        try:
            found = post("/completions", [{}, {}])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    said = (
        f"the model server at {server.url} answered a request with more than 1 MiB "
        "(-o max_answer_mib sets the cap)"
    )
    assert found == [Failed(said), Failed(said)]
    assert peak < 16 * 2**20  # two answers of 64 MiB, each read no further than 1 MiB


def test_an_answer_within_the_cap_is_read_and_the_cap_is_an_engine_option() -> None:
    body = _answer_of(2 * 2**20)
    with Loopback(lambda _: Reply(200, body, declared=False)) as server:
        options = engine_kind("openai").parse_options(
            {"base_url": server.url, "max_answer_mib": "3", "retries": "0"}
        )
        assert isinstance(options, OpenAIOptions)
        (found,) = options.server().post_all("/completions", [{}])
        (cut,) = Server.at(server.url, retries=0, max_answer_mib=1.5).post_all("/completions", [{}])
    assert isinstance(found, dict) and len(found["choices"][0]["text"]) == 2 * 2**20
    assert isinstance(cut, Failed) and "more than 1.5 MiB" in cut.message
    assert engine_kind("openai").identity_options(options) == {  # it does not identify a run
        "endpoint": "completions",
        "check": "files",
    }


def test_a_model_list_past_the_size_cap_is_one_line() -> None:
    listed = json.dumps({"object": "list", "data": [{"id": "m" * 3 * 2**20}]}).encode()
    with (
        Loopback(lambda _: Reply(200, listed, declared=False)) as server,
        pytest.raises(ConfigurationError) as refused,
    ):
        Server.at(server.url, max_answer_mib=2).get("/models")
    assert str(refused.value) == (
        f"the model server at {server.url} answered GET /models with more than 2 MiB "
        "(-o max_answer_mib sets the cap); is it an OpenAI-compatible server?"
    )


@pytest.mark.parametrize(("given", "read"), [(True, None), (-1, None), (2.5, None), (512, 512)])
def test_a_length_limit_that_is_not_a_positive_whole_number_is_not_read(
    manifest: ModelManifest, given: object, read: int | None
) -> None:
    model = {"id": "words", "owned_by": "vllm", "max_model_len": given}
    with Loopback(lambda _: Reply.of({"object": "list", "data": [model]})) as server:
        served = inspect_served(Server.at(server.url), manifest, None, "none")
    assert served.max_model_len == read
