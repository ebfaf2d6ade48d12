"""Where the service listens: a socket bound before the model loads, served by uvicorn."""

from __future__ import annotations

import ipaddress
import signal
import socket
import threading
from typing import TYPE_CHECKING

from ..errors import ConfigurationError

if TYPE_CHECKING:
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


def serve_socket(app: Starlette, sock: socket.socket) -> None:
    """Serve `app` on `sock` until Ctrl-C or SIGTERM, then return."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=10,
    )
    server = uvicorn.Server(config)
    if threading.current_thread() is not threading.main_thread():
        server.run(sockets=[sock])
        return
    previous = {sig: signal.signal(sig, _stopped) for sig in STOP_SIGNALS}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
