"""The command line scores end to end on the real embedded model with the network blocked."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main

from ..conftest import EXAMPLE, recall


class _NoNetwork(OSError):
    pass


class _RefusingSocket(socket.socket):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _NoNetwork("network access attempted")


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise _NoNetwork("network access attempted")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "socket", _RefusingSocket)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)


def test_the_guard_refuses_sockets(no_network: None) -> None:
    with pytest.raises(_NoNetwork):
        socket.socket()
    with pytest.raises(_NoNetwork):
        socket.create_connection(("example.org", 80))


@pytest.mark.model
def test_scores_with_the_network_blocked(tmp_path: Path, no_network: None) -> None:
    data, out = tmp_path / "two.jsonl", tmp_path / "r.jsonl"
    data.write_text("\n".join(EXAMPLE.read_text().splitlines()[:2]) + "\n")
    result = CliRunner().invoke(main, ["score", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 2]
    assert all(recall(r)["status"] in ("ok", "no_claims") for r in rows), rows
