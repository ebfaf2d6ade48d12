"""`serve` bounded (issue 54): a read timeout for a request's head and body, a cap on open
connections, a cap on the work one run may ask (413 naming the limit), batches bounded by
work so one large request cannot stall small ones long, a stop answering every waiting client
503 without a traceback, and a number too long for Python a 400. The service runs in this
process on the fake engine, on loopback, with small bounds; every loop is bounded."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from offline_recall.runs.score import resolve, session
from offline_recall.service import batcher as batching
from offline_recall.service.app import Settings, service_app
from offline_recall.service.batcher import Batcher, Worker
from offline_recall.service.listen import bind, service_server, url_of

from ..conftest import RECALL
from .test_serve_batching import Recording, row, scoring

RUN = {"groundTruth": "Paris is in France.", "context": ["Paris is in France."]}
JSON = {"Content-Type": "application/json"}


@dataclass
class Served:
    url: str
    port: int
    settings: Settings


@contextmanager
def served(**bounds: Any) -> Iterator[Served]:
    """The service on the fake engine in a thread, on a free loopback port, with `bounds`
    (Settings' fields); stopped as a stop signal stops it."""
    run = resolve([RECALL], backend="fake")
    worker = Worker()
    scoring = worker.call(lambda: session(run))
    settings = Settings(token=None, max_request_bytes=64 * 1024, **bounds)
    batcher = Batcher(scoring, worker, run.spec.digest, size=scoring.window, wait=0.001)
    sock = bind("127.0.0.1", 0)
    server = service_server(service_app(run.spec, batcher, settings))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.started
        yield Served(url_of(sock), sock.getsockname()[1], settings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        assert not thread.is_alive()
        worker.call(scoring.close)
        worker.shutdown()
        sock.close()


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    return sock


def _answer(sock: socket.socket, within: float) -> bytes:
    """What the service sends on `sock` until it closes it, waiting at most `within` s."""
    sock.settimeout(within)
    got = b""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            block = sock.recv(65536)
        except TimeoutError:
            break
        if not block:
            return got
        got += block
    raise AssertionError(f"the connection was still open after {within} s: {got!r}")


def _status_and_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body)["error"]


# 5.: a read timeout for heads and bodies, a cap on connections


def test_a_head_that_does_not_arrive_in_time_is_answered_408_and_closed() -> None:
    with served(read_timeout=1.0) as service:
        silent = _connect(service.port)
        dripping = _connect(service.port)
        dripping.sendall(b"POST /score/context-recall-scorer HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        for sock in (silent, dripping):
            status, error = _status_and_error(_answer(sock, within=5))
            assert (status, error) == (408, "the request's head did not arrive within 1 s")
            sock.close()
        assert time.monotonic() - started < 4
        assert httpx.get(f"{service.url}/health", timeout=10).status_code == 200


def test_a_body_that_does_not_arrive_in_time_is_answered_408_and_closed() -> None:
    with served(read_timeout=1.0) as service:
        sock = _connect(service.port)
        sock.sendall(
            b"POST /score/context-recall-scorer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ground'
        )
        status, error = _status_and_error(_answer(sock, within=5))
        assert (status, error) == (408, "the request's body did not arrive within 1 s")
        sock.close()


def test_a_connection_over_the_cap_is_answered_503_and_closed() -> None:
    with served(max_connections=4, read_timeout=20.0) as service:
        held = [_connect(service.port) for _ in range(4)]
        try:
            time.sleep(0.2)  # the service has taken them all
            extra = _connect(service.port)
            status, error = _status_and_error(_answer(extra, within=5))
            assert status == 503
            assert error == "the service holds 4 connections, its most: try again shortly"
            extra.close()
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.2)
        answer = httpx.post(f"{service.url}/score/{RECALL}", json=RUN, timeout=30)
        assert answer.status_code == 200, answer.text


# 11.: the work one run may ask


def test_a_run_asking_more_work_than_the_limit_is_413_naming_it() -> None:
    with served(max_work=120, max_characters=2000) as service:
        scored = f"{service.url}/score/{RECALL}"
        fits = {**RUN, "context": ["Paris is in France."] * 10}  # 10 chunks x 12 claims
        assert httpx.post(scored, json=fits, timeout=30).status_code == 200
        wide = {**RUN, "context": ["Paris is in France."] * 11}
        refused = httpx.post(scored, json=wide, timeout=30)
        assert refused.status_code == 413
        assert refused.json() == {
            "error": "the run asks up to 132 judgments (11 chunks by up to 12 claims each), "
            "over this service's limit of 120: send at most 10 chunks"
        }
        long = {**RUN, "groundTruth": "Paris is in France. " * 100}
        refused = httpx.post(scored, json=long, timeout=30)
        assert refused.status_code == 413
        assert "characters of text, over this service's limit of 2000" in refused.json()["error"]
        limits = httpx.get(f"{service.url}/health", timeout=10).json()["limits"]
        assert (limits["max_work"], limits["max_characters"]) == (120, 2000)


def test_a_large_request_is_scored_alone_and_small_ones_go_in_the_next_batch() -> None:
    recorder = Recording("r")
    worker = Worker()
    batcher = Batcher(scoring(recorder), worker, "digest", size=16, work=100)

    async def scenario() -> None:
        batcher.start()
        try:
            large = batcher.submit("r", row("large"), work=100)
            small = [batcher.submit("r", row(f"s{i}"), work=10) for i in range(3)]
            await asyncio.wait_for(asyncio.gather(large, *small), timeout=30)
        finally:
            await batcher.stop()

    try:
        asyncio.run(scenario())
    finally:
        worker.shutdown()
    assert recorder.batches == [["large"], ["s0", "s1", "s2"]]


# 6.: a stop answers every waiting client 503, with no traceback


def test_a_stop_during_a_long_batch_answers_waiting_clients_503_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real: Callable[..., Any] = getattr(batching, "score_window")  # noqa: B009 (not exported)
    batch_started = threading.Event()

    def slow(*args: Any) -> Any:
        batch_started.set()
        time.sleep(3)
        return real(*args)

    monkeypatch.setattr(batching, "score_window", slow)
    answers: list[httpx.Response | BaseException] = []

    def client(service: Served, n: int) -> None:
        body = {**RUN, "groundTruth": f"Paris is in France, {n}."}
        try:
            answers.append(httpx.post(f"{service.url}/score/{RECALL}", json=body, timeout=30))
        except BaseException as e:  # what the test reports
            answers.append(e)

    caplog.set_level(logging.INFO)
    clients: list[threading.Thread] = []
    with served(max_work=12) as service:  # one run a batch: the others wait in the queue
        for n in range(3):
            clients.append(threading.Thread(target=client, args=(service, n)))
            clients[-1].start()
        assert batch_started.wait(timeout=20)
        time.sleep(0.3)  # the other two are queued
        stopping = time.monotonic()
    # the service has stopped (its thread ended) ...
    for thread in clients:
        thread.join(timeout=20)
    assert len(answers) == 3, answers
    for answer in answers:
        assert isinstance(answer, httpx.Response), answer
        assert answer.status_code == 503, answer.text
        assert answer.json() == {"error": "the service is stopping"}
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "Traceback" not in logged and "CancelledError" not in logged, logged
    assert "Cancel" not in logged, logged
    assert time.monotonic() - stopping < 15


# 4.: a number too long for Python in a request


def test_a_number_too_long_in_a_request_is_a_400_json_error() -> None:
    with served() as service:
        body = b'{"groundTruth": ' + b"9" * 5000 + b', "context": ["x"]}'
        answer = httpx.post(f"{service.url}/score/{RECALL}", content=body, headers=JSON, timeout=30)
        assert answer.status_code == 400
        assert answer.json() == {
            "error": "the body cannot be read: a number has more than 4300 digits"
        }
