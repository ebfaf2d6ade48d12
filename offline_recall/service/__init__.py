"""A local scoring service: one resolved run, scoring Mastra-shaped runs sent over HTTP.

`offline-recall serve` resolves a run as `score` does (model, engine, scorers, judge profiles),
starts its engine once, and scores each request's run through the same rows-to-results path as
`score` (`runs.local.score_window`), so a served result is the one `score` writes for the
same row. Requests that arrive together are scored together: one worker feeds the engine in
batches (`batcher.py`). What a request may hold and how it is read is in `requests.py`; the
HTTP side (routes, bearer token, size and work bounds, health) in `app.py`; what a request
must be before it is read (its `Host`, its `Content-Type`, its framing) in `guard.py`;
listening, with its read timeout and connection cap, in `listen.py`.
"""

from __future__ import annotations

TOKEN_ENV = "OFFLINE_RECALL_SERVE_TOKEN"
"""The environment variable holding the bearer token every request must carry, when set."""

DEFAULT_PORT = 8765
"""The port `offline-recall serve` listens on unless told otherwise."""

MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The largest request body accepted by default; a larger one is refused with 413."""

READ_TIMEOUT = 30.0
"""Seconds a request's head may take to arrive (from the connection, or from the previous
answer on a kept-alive one), and again its body: a slower one is answered 408 and closed."""

MAX_CONNECTIONS = 128
"""Connections held open at once; one more is answered 503 and closed at once."""

MAX_WORK = 20_000
"""The most judgments one run may ask: its context's chunks times the claims a scorer may extract
(`max_items`); a run asking more is refused with 413. It also bounds a batch's work, so a
request waits behind at most about this much."""

MAX_CHARACTERS = 1_000_000
"""The most characters of text one run may hold (input, output, ground truth and context
together); a run holding more is refused with 413."""

__all__ = [
    "DEFAULT_PORT",
    "MAX_CHARACTERS",
    "MAX_CONNECTIONS",
    "MAX_REQUEST_BYTES",
    "MAX_WORK",
    "READ_TIMEOUT",
    "TOKEN_ENV",
]
