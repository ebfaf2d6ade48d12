"""A local scoring service: one resolved run, scoring Mastra-shaped runs sent over HTTP.

`offline-recall serve` resolves a run as `score` does (model, engine, scorers, judge profiles),
starts its engine once, and scores each request's run through the same rows-to-results path as
`score` (`runs.local.score_window`), so a served result is the one `score` writes for the
same row. Requests that arrive together are scored together: one worker feeds the engine in
batches (`batcher.py`). What a request may hold and how it is read is in `requests.py`; the
HTTP side (routes, bearer token, size bound, health) in `app.py`; listening in `listen.py`.
"""

from __future__ import annotations

TOKEN_ENV = "OFFLINE_RECALL_SERVE_TOKEN"
"""The environment variable holding the bearer token every request must carry, when set."""

DEFAULT_PORT = 8765
"""The port `offline-recall serve` listens on unless told otherwise."""

MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The largest request body accepted by default; a larger one is refused with 413."""

__all__ = ["DEFAULT_PORT", "MAX_REQUEST_BYTES", "TOKEN_ENV"]
