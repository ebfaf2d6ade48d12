"""`offline-recall serve` as a command: where the service listens and what it says about it,
and its one-line errors."""

from __future__ import annotations

import importlib.util
import socket
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from offline_recall.cli import main
from offline_recall.service import listen
from offline_recall.service.app import authorized
from offline_recall.service.listen import is_loopback


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_loopback_is_this_machine_only(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_bearer_token_is_compared_whole() -> None:
    assert authorized(None, None)
    assert authorized("Bearer s3cret", "s3cret")
    assert authorized("bearer s3cret", "s3cret")
    for header in (None, "", "s3cret", "Bearer", "Bearer s3cre", "Bearer s3cret2", "Basic s3cret"):
        assert not authorized(header, "s3cret"), header


@pytest.fixture
def not_served(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`serve` bound to a free loopback port whatever --host says, and returning at once
    instead of serving; the hosts it was asked for are listed."""
    asked: list[str] = []
    bind = listen.bind

    def loopback(host: str, port: int) -> socket.socket:
        asked.append(host)
        return bind("127.0.0.1", 0)

    monkeypatch.setattr(listen, "bind", loopback)
    monkeypatch.setattr(listen, "serve_socket", lambda app, sock: None)
    return asked


def serve(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, ["serve", "--backend", "fake", *args], env=env)


def test_listening_beyond_loopback_is_warned_about(not_served: list[str]) -> None:
    done = serve("--host", "0.0.0.0", env={"OFFLINE_RECALL_SERVE_TOKEN": ""})
    assert done.exit_code == 0, done.output
    assert not_served == ["0.0.0.0"]
    assert "warning: --host 0.0.0.0 listens beyond this machine" in done.stderr
    assert "set OFFLINE_RECALL_SERVE_TOKEN" in done.stderr
    assert done.stdout.startswith("listening on http://127.0.0.1:")

    with_token = serve("--host", "0.0.0.0", env={"OFFLINE_RECALL_SERVE_TOKEN": "s3cret"})
    assert "listens beyond this machine" in with_token.stderr
    assert "set OFFLINE_RECALL_SERVE_TOKEN" not in with_token.stderr

    quiet = serve()
    assert not_served[-1] == "127.0.0.1"  # the default
    assert "warning" not in quiet.stderr


def test_names_given_with_allow_host_may_address_the_service(
    not_served: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    apps: list[Any] = []
    monkeypatch.setattr(listen, "serve_socket", lambda app, sock: apps.append(app))
    done = serve("--allow-host", "rag.internal", "--allow-host", "box.lan:8765")
    assert done.exit_code == 0, done.output
    client = TestClient(apps[0], base_url="http://127.0.0.1:8765")
    for host in ("rag.internal:8765", "box.lan", "localhost:8765", "127.0.0.1"):
        assert client.get("/health", headers={"Host": host}).status_code == 200, host
    refused = client.get("/health", headers={"Host": "evil.example:8765"})
    assert refused.status_code == 403
    assert "--allow-host NAME" in refused.json()["error"]


def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--port", str(port))
    assert done.exit_code == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"Error: cannot listen on 127.0.0.1:{port}: Address already in use; choose another "
        "--port (0 picks a free one)"
    )


def test_without_the_server_packages_it_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    done = serve()
    assert done.exit_code == 1
    assert "uvicorn is not installed; run: pip install 'offline-recall[serve]'" in done.stderr
