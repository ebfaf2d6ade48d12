"""`serve` answers only its own clients: a `Host` that is not the service's is refused with 403
(a name rebound to this machine cannot read answers), a POST that is not JSON with 415 (a web
page's "simple" cross-site request cannot post work), and a request framed both by
`Transfer-Encoding` and `Content-Length` with 400, its connection closed (no request smuggled
behind it). The service runs in this process on the fake engine, on loopback."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import httpx
import pytest
from uvicorn.protocols.http import auto
from uvicorn.protocols.http.h11_impl import H11Protocol

from offline_recall.service.guard import host_name

from ..conftest import RECALL
from .test_service_bounds import RUN, _answer, _connect, _status_and_error, served


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("127.0.0.1:8765", "127.0.0.1"),
        ("LocalHost:8765", "localhost"),
        ("localhost", "localhost"),
        ("[::1]:8765", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("::1", "::1"),
        ("rag.internal:80", "rag.internal"),
        ("127.0.0.1.evil.example", "127.0.0.1.evil.example"),
    ],
)
def test_a_host_is_read_without_its_port(given: str, name: str) -> None:
    assert host_name(given) == name


@pytest.mark.parametrize(
    "media",
    [
        None,
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "application/json-patch+json",
    ],
)
def test_a_post_that_is_not_json_is_refused_with_415(media: str | None) -> None:
    headers = {} if media is None else {"Content-Type": media}
    with served() as service:
        refused = httpx.post(
            f"{service.url}/score/{RECALL}",
            content=json.dumps(RUN).encode(),
            headers=headers,
            timeout=30,
        )
        assert refused.status_code == 415, refused.text
        assert refused.json() == {
            "error": "send the run as JSON, with `Content-Type: application/json`"
        }
        assert refused.headers["connection"] == "close"
        assert httpx.get(f"{service.url}/health", timeout=10).status_code == 200
        assert httpx.get(f"{service.url}/health", timeout=10).status_code == 200


def test_json_with_a_charset_or_in_capitals_is_scored() -> None:
    with served() as service:
        for media in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
            answer = httpx.post(
                f"{service.url}/score/{RECALL}",
                content=json.dumps(RUN).encode(),
                headers={"Content-Type": media},
                timeout=30,
            )
            assert answer.status_code == 200, (media, answer.text)
            assert answer.json()["score"] == 1.0


def _asked(url: str, path: str, host: str) -> httpx.Response:
    headers = {"Host": host, "Content-Type": "application/json"}
    if path == "/health":
        return httpx.get(f"{url}{path}", headers=headers, timeout=30)
    return httpx.post(f"{url}{path}", content=json.dumps(RUN).encode(), headers=headers, timeout=30)


@pytest.mark.parametrize("path", ["/health", f"/score/{RECALL}", "/nowhere"])
def test_a_host_that_is_not_the_service_is_refused_with_403(path: str) -> None:
    with served(hosts=("127.0.0.1", "rag.internal")) as service:
        for host in (
            "evil.example",
            f"evil.example:{service.port}",
            f"127.0.0.1.evil.example:{service.port}",
            "localhost.evil.example",
            "192.168.1.10",
        ):
            refused = _asked(service.url, path, host)
            assert refused.status_code == 403, (host, refused.text)
            said = refused.json()["error"]
            assert said.startswith(f"the request's Host {host!r} is not a name of this service")
            assert "--allow-host NAME" in said
            assert refused.headers["connection"] == "close"
        for host in (
            f"127.0.0.1:{service.port}",
            f"localhost:{service.port}",
            f"[::1]:{service.port}",
            "127.0.0.1",
            "localhost",
            f"rag.internal:{service.port}",
            "RAG.internal",
        ):
            answer = _asked(service.url, path, host)
            assert answer.status_code in (200, 404), (host, answer.text)
            assert "is not a name of this service" not in answer.text


def test_a_request_without_a_host_is_refused_with_403() -> None:
    with served() as service:
        sock = _connect(service.port)
        sock.sendall(b"GET /health HTTP/1.0\r\n\r\n")
        status, error = _status_and_error(_answer(sock, within=5))
        sock.close()
        assert status == 403
        assert error.startswith("the request's Host 'none' is not a name of this service")


def _parsers() -> list[Any]:
    parsers: list[Any] = [pytest.param(H11Protocol, id="h11")]
    if importlib.util.find_spec("httptools") is not None:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        parsers.append(pytest.param(HttpToolsProtocol, id="httptools"))
    return parsers


@pytest.mark.parametrize("parser", _parsers())
def test_a_request_framed_two_ways_is_refused_with_400_and_closed(
    parser: type[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request's body is chunked and its declared length differs; a second request sent
    behind it on the same connection is never answered."""
    monkeypatch.setattr(auto, "AutoHTTPProtocol", parser)
    body = json.dumps(RUN).encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with served() as service:
        sock = _connect(service.port)
        sock.sendall(
            b"POST /score/" + RECALL.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 4\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + chunked + b"GET /health HTTP/1.1\r\n"
            b"Host: 127.0.0.1\r\n\r\n"
        )
        answer = _answer(sock, within=5)
        sock.close()
        assert answer.count(b"HTTP/1.1 ") == 1, answer
        status, error = _status_and_error(answer)
        assert status == 400
        assert error in (
            "the request has both Transfer-Encoding and Content-Length: send one of them",
            "the request is not valid HTTP/1.1",
        )
        assert b"\r\nconnection: close\r\n" in answer.lower()
        assert httpx.get(f"{service.url}/health", timeout=10).status_code == 200
