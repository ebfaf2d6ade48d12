"""Credentials in an address: found, so that a server's address holding any is refused, and
left out of every address shown or recorded.

A model server's key travels only in an environment variable (`api_key_env`), read when a
request is sent; an address is recorded in a run's manifest, its store and the server cache,
and printed in messages, so it must hold no user name, no password and no secret in its query
(`?api_key=...`, `?token=...`).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "authorization",
        "sig",
        "signature",
        "credential",
        "credentials",
        "session",
    }
)
"""Words that make a query parameter a secret, among its name's parts (`api_key`,
`X-Amz-Signature`)."""

HIDDEN = "***"
"""What stands for a secret in an address shown."""


def _secret(name: str) -> bool:
    return any(part in _SECRET_WORDS for part in re.split(r"[^a-z0-9]+", name.lower()))


def credentials_in(url: str) -> list[str]:
    """What in `url` is a credential, in words (`a user name and password`, `the query
    parameter api_key`); empty when it holds none."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = []
    if "@" in parts.netloc:
        found.append("a user name and password")
    found += [
        f"the query parameter {name}"
        for name, _ in parse_qsl(parts.query, keep_blank_values=True)
        if _secret(name)
    ]
    return found


def shown_url(url: str) -> str:
    """`url` as it may be shown or recorded: without its user name and password, and with the
    value of each query parameter named like a secret replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return HIDDEN if "@" in url or "?" in url else url
    host = parts.netloc.rpartition("@")[2]
    query = [
        (name, HIDDEN if _secret(name) else value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    shown_query = urlencode(query, safe="*") if query else parts.query
    return urlunsplit((parts.scheme, host, parts.path, shown_query, parts.fragment))
