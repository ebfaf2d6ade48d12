"""What a request must be before the service reads it: framed one way, addressed to this
service, and JSON when it carries a body.

Without a token, any web page the user opens could use the service: a page may send a
"simple" cross-site request (a form's `text/plain` POST) without asking first, and a page
whose host name is rebound to 127.0.0.1 (DNS rebinding) may read the answers. So:

- a request with both `Transfer-Encoding` and `Content-Length` is refused with 400 (its
  length is ambiguous, the way requests are smuggled past a proxy: RFC 9112 §6.1);
- its `Host` must name this machine's loopback (`localhost`, 127.0.0.1, [::1]), the address
  the connection reached, the `--host` the service listens on, or a name allowed with
  `--allow-host`, on any port (a forwarded port renames none of them), else 403;
- a POST must say `Content-Type: application/json` (a charset may follow), else 415: a page
  can send that only after a CORS preflight, which the service never grants.

Each refusal is `{"error": ...}` and closes the connection, the body unread.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .listen import is_loopback

JSON = "application/json"
"""The only media type a request's body may have."""


def host_name(value: str) -> str:
    """The name in a `Host` header (or a `--host`), without its port, lower-cased; an IP
    address in its canonical form, without brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        name = value[1:].partition("]")[0]
    elif value.count(":") == 1:
        name = value.partition(":")[0]
    else:
        name = value  # a name, or an IPv6 address given without brackets (a --host)
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def _header(scope: Scope, name: bytes) -> list[str]:
    """The values of the request's header `name` (lower-case), in order."""
    return [v.decode("latin-1") for k, v in scope["headers"] if k == name]


def _refused(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Connection": "close"})


def refusal(scope: Scope, hosts: frozenset[str]) -> JSONResponse | None:
    """The answer refusing an HTTP request (see the module's docstring); None if it may go
    on. `hosts`: the names allowed besides loopback and the address reached, as `host_name`
    gives them."""
    if _header(scope, b"transfer-encoding") and _header(scope, b"content-length"):
        return _refused(
            400, "the request has both Transfer-Encoding and Content-Length: send one of them"
        )
    given = _header(scope, b"host")
    name = host_name(given[0]) if len(given) == 1 else ""
    reached = host_name(str(scope["server"][0])) if scope.get("server") else None
    if not (name and (is_loopback(name) or name == reached or name in hosts)):
        return _refused(
            403,
            f"the request's Host {', '.join(given) or 'none'!r} is not a name of this "
            "service: send it to the service's address (such as 127.0.0.1 or localhost), or "
            "start the service with --allow-host NAME to take the name its clients use",
        )
    if scope["method"] == "POST":
        media = _header(scope, b"content-type")
        if len(media) != 1 or media[0].partition(";")[0].strip().lower() != JSON:
            return _refused(415, f"send the run as JSON, with `Content-Type: {JSON}`")
    return None


class Guard:
    """ASGI middleware answering the requests `refusal` refuses, before `app` sees them."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = frozenset(host_name(h) for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = refusal(scope, self.hosts) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
        else:
            await refused(scope, receive, send)
