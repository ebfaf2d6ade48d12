"""`offline-recall serve` in a process of its own, on loopback, as a user starts it."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ALL_SCORERS = (
    "context-recall-scorer",
    "context-precision-scorer",
    "faithfulness-scorer",
    "context-relevance-scorer",
)
_LISTENING = re.compile(r"^listening on (http://\S+)$")


@contextmanager
def serving(*args: str, env: dict[str, str] | None = None, start_s: float = 120) -> Iterator[str]:
    """`offline-recall serve --port 0 ARGS` running; yields its URL, read from the line it
    prints once ready, and stops it with SIGTERM (it must exit 0)."""
    cli = Path(sys.executable).with_name("offline-recall")
    process = subprocess.Popen(
        [str(cli), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], start_s)
        line = process.stdout.readline() if ready else ""
        found = _LISTENING.match(line.strip())
        if found is None:
            process.kill()
            _, err = process.communicate(timeout=30)
            raise AssertionError(f"serve did not start: {line!r}\n{err[-3000:]}")
        yield found.group(1)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0, err[-3000:]
