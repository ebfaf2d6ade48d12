"""Where the service listens: a socket bound before the model loads, served by uvicorn.

The connections are bounded here, below the application: at most `max_connections` are held
open (one more is answered 503 and closed at once), and a request's head must arrive within
`read_timeout` seconds of the connection (or of the previous answer on a kept-alive one), else
it is answered 408 and closed. The body's own timeout is the application's (`app._body`). A
request the HTTP parser cannot read is answered 400 `{"error": ...}` and closed. On a stop,
every request not answered yet is answered 503 before the connections are waited for.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import signal
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from . import MAX_CONNECTIONS, READ_TIMEOUT

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

LOOPBACK = "127.0.0.1"
"""Where the service listens unless told otherwise: this machine only."""


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (0: a free port); one line saying why not."""
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(1024)
    except OSError as e:
        sock.close()
        reason = e.strerror or str(e)
        raise ConfigurationError(
            f"cannot listen on {host}:{port}: {reason}; choose another --port (0 picks a free one)"
        ) from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The service's root URL, from the address `sock` is bound to."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""What stops the service: Ctrl-C, or a process manager's SIGTERM."""


def _stopped(signum: int, frame: object) -> None:
    """The handler uvicorn hands a stop signal back to once it has shut down: nothing more
    to do, so the command ends normally (its clean-up runs, it exits 0)."""


def refusal(status: int, message: str) -> bytes:
    """A whole HTTP answer `{"error": message}` that closes the connection, for a connection
    refused below the application."""
    body = json.dumps({"error": message}).encode()
    phrase = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}[status]
    head = (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


def bounded_protocol(
    base: type[asyncio.Protocol], read_timeout: float, max_connections: int
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol `base`, with a cap on open connections and a deadline for each
    request's head (see the module's docstring)."""

    class Bounded(base):  # type: ignore[misc, valid-type]
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(
                    refusal(
                        503,
                        f"the service holds {max_connections} connections, its most: try "
                        "again shortly",
                    )
                )
                transport.close()
                return
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(read_timeout, self._expired, self.cycle)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self, armed: Any) -> None:
            """No request's head arrived since the deadline was set: close the connection."""
            self._deadline = None
            idle = self.cycle is armed and (armed is None or armed.response_complete)
            if idle and not self.transport.is_closing():
                said = f"the request's head did not arrive within {read_timeout:g} s"
                self.transport.write(refusal(408, said))
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's head, on a kept-alive connection

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            """A request the parser refused (malformed, or framed two ways): said as JSON."""
            self.transport.write(refusal(400, "the request is not valid HTTP/1.1"))
            self.transport.close()

    return Bounded


def service_server(app: Starlette) -> uvicorn.Server:
    """The uvicorn server for `app`, bounded by its settings (`app.state.settings`: its read
    timeout and connection cap), which on a stop first calls `app.state.halt` (answering
    every request not answered yet) and then waits for the connections."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    settings = getattr(app.state, "settings", None)
    read_timeout = getattr(settings, "read_timeout", READ_TIMEOUT)
    max_connections = getattr(settings, "max_connections", MAX_CONNECTIONS)
    halt: Callable[[], None] | None = getattr(app.state, "halt", None)

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if halt is not None:
                halt()
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=10,
        http=bounded_protocol(AutoHTTPProtocol, read_timeout, max_connections),
    )
    return Server(config)


def serve_socket(app: Starlette, sock: socket.socket) -> None:
    """Serve `app` on `sock` until Ctrl-C or SIGTERM, then return."""
    server = service_server(app)
    if threading.current_thread() is not threading.main_thread():
        server.run(sockets=[sock])
        return
    previous = {sig: signal.signal(sig, _stopped) for sig in STOP_SIGNALS}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
