"""Requests to a model server over HTTP: concurrent, bounded, retried, and failures as values.

Only the given base URL is contacted, never through a proxy from the environment. Each request
has one deadline for the whole of it (connecting, the headers and the body, however slowly
they come) and each answer is read as it arrives, never past a size cap. A request that fails
for good becomes that prompt's `Failed`; a server that cannot be reached at all stops the run
with `ServerUnavailable` (the run store keeps what was scored, and the same command resumes
once the server is back).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ConfigurationError, OfflineRecallError
from ..printable import printable
from ..urls import credentials_in
from .base import Done, Failed

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")
MAX_ANSWER_MIB = 4
"""Mebibytes of one answer read at most, by default: a verdict, a claim list or a model list
is a few kilobytes, and up to `concurrency` answers are read at once."""
BACKOFF = 0.5
"""Seconds before the first retry; each later retry waits twice as long."""


class ServerUnavailable(OfflineRecallError):
    """The model server cannot be reached: nothing more can be scored until it is back."""


class TooLarge(Exception):
    """An answer longer than the size cap; reading it was stopped there."""


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end from synchronous code, even under a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def refused_credentials(found: Sequence[str]) -> str:
    """Why an address holding credentials (`found`, in words) is refused, and what to do."""
    return (
        f"holds {' and '.join(found)}, which would be recorded with the run and printed; "
        "give the server's key in an environment variable named with --api-key-env "
        "(-o api_key_env=VAR) instead"
    )


def _one_line(text: str, limit: int = 200) -> str:
    # Cut before the words are split: a long answer costs what is shown.
    return printable(" ".join(text[: 4 * limit].split()), limit)


def _connection_lost(error: Exception) -> bool:
    """Whether `error` means the server is gone rather than slow on one request."""
    import httpx

    return isinstance(error, httpx.ConnectError | httpx.RemoteProtocolError | httpx.ReadError)


@dataclass(frozen=True)
class Server:
    """An OpenAI-compatible server at `base_url` (ending in `/v1`)."""

    base_url: str
    timeout: float = 600.0
    """Seconds one request may take, from connecting to the last byte of its answer."""
    retries: int = 4
    concurrency: int = 64
    api_key: str | None = field(default=None, repr=False)
    max_answer: int = MAX_ANSWER_MIB * 2**20
    """Bytes of one answer read at most."""

    @classmethod
    def at(
        cls,
        base_url: str,
        *,
        api_key_env: str | None = None,
        timeout: float = 600.0,
        retries: int = 4,
        concurrency: int = 64,
        max_answer_mib: float = MAX_ANSWER_MIB,
    ) -> Server:
        """The server, with its API key read from the environment variable `api_key_env`; an
        address holding a credential is refused (see `urls`)."""
        if found := credentials_in(base_url):
            raise ConfigurationError(f"the server's address {refused_credentials(found)}")
        key = None
        if api_key_env is not None:
            key = os.environ.get(api_key_env)
            if not key:
                raise ConfigurationError(
                    f"the environment variable {api_key_env} (api_key_env) is not set; "
                    "export the server's API key in it"
                )
        return cls(
            base_url.rstrip("/"), timeout, retries, concurrency, key, int(max_answer_mib * 2**20)
        )

    def _headers(self) -> dict[str, str]:
        return {} if self.api_key is None else {"Authorization": f"Bearer {self.api_key}"}

    def unreachable(self, error: Exception) -> ServerUnavailable:
        reason = _one_line(str(error)) or type(error).__name__
        return ServerUnavailable(
            f"cannot reach the model server at {self.base_url} ({reason}); start it or check "
            "--base-url, then run the same command again"
        )

    def _client(self) -> httpx.AsyncClient:
        import httpx

        limits = httpx.Limits(
            max_connections=self.concurrency, max_keepalive_connections=self.concurrency
        )
        return httpx.AsyncClient(
            base_url=self.base_url,
            headers=self._headers(),
            timeout=self.timeout,
            limits=limits,
            trust_env=False,
        )

    @property
    def _late(self) -> str:
        return f"no whole answer within {self.timeout:g} s"

    def _too_large(self, what: str) -> str:
        return (
            f"the model server at {self.base_url} answered {what} with more than "
            f"{self.max_answer / 2**20:g} MiB (-o max_answer_mib sets the cap)"
        )

    async def _fetch(
        self, client: httpx.AsyncClient, method: str, path: str, body: dict[str, Any] | None
    ) -> tuple[int, bytes]:
        """One request's status and answer, within `timeout` seconds as a whole; the answer
        is read as it arrives and never past `max_answer` bytes (`TooLarge`)."""

        async def fetch() -> tuple[int, bytes]:
            request = client.build_request(method, path, json=body)
            response = await client.send(request, stream=True)
            try:
                declared = response.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > self.max_answer:
                    raise TooLarge
                received = bytearray()
                async for chunk in response.aiter_bytes():
                    received += chunk
                    if len(received) > self.max_answer:
                        raise TooLarge
            finally:
                await response.aclose()
            return response.status_code, bytes(received)

        return await asyncio.wait_for(fetch(), self.timeout)

    def get(self, path: str) -> dict[str, Any]:
        """A GET answered with a JSON object; anything else is one error that says why."""
        return _run(self._get(path))

    async def _get(self, path: str) -> dict[str, Any]:
        import httpx

        try:
            async with self._client() as client:
                status, received = await self._fetch(client, "GET", path, None)
        except TimeoutError as e:
            raise self.unreachable(TimeoutError(self._late)) from e
        except TooLarge:
            raise ConfigurationError(
                f"{self._too_large(f'GET {path}')}; is it an OpenAI-compatible server?"
            ) from None
        except (httpx.TransportError, httpx.DecodingError) as e:
            raise self.unreachable(e) from e
        if status in (401, 403):
            raise ConfigurationError(
                f"the model server at {self.base_url} refused the request "
                f"({status}); give its API key with --api-key-env VAR"
            )
        text = received.decode("utf-8", "replace")
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser goes
            body = None
        if status != 200 or not isinstance(body, dict):
            raise ConfigurationError(
                f"the model server at {self.base_url} answered {status} to GET "
                f"{path}: {_one_line(text)}; is it an OpenAI-compatible server?"
            )
        return body

    def post_all(
        self, path: str, bodies: Sequence[dict[str, Any]], done: Done | None = None
    ) -> list[dict[str, Any] | Failed]:
        """Each body POSTed, at most `concurrency` at a time; each answer in order."""
        return self.post_waves(path, [bodies], done)[0]

    def post_waves(
        self, path: str, waves: Sequence[Sequence[dict[str, Any]]], done: Done | None = None
    ) -> list[list[dict[str, Any] | Failed]]:
        """Each wave's bodies POSTed concurrently, a wave only after the one before is done
        (so that a prompt head computed in one wave is in the server's cache for the next)."""
        return _run(self._waves(path, [list(w) for w in waves], done))

    async def _waves(
        self, path: str, waves: list[list[dict[str, Any]]], done: Done | None
    ) -> list[list[dict[str, Any] | Failed]]:
        return [await self._post_all(path, wave, done) if wave else [] for wave in waves]

    async def _post_all(
        self, path: str, bodies: list[dict[str, Any]], done: Done | None
    ) -> list[dict[str, Any] | Failed]:
        gate = asyncio.Semaphore(self.concurrency)
        async with self._client() as client:

            async def one(body: dict[str, Any]) -> dict[str, Any] | Failed:
                async with gate:
                    answer = await self._post(client, path, body)
                if done is not None:
                    done(1)
                return answer

            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [group.create_task(one(body)) for body in bodies]
            except* ServerUnavailable as lost:
                raise lost.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _post(
        self, client: httpx.AsyncClient, path: str, body: dict[str, Any]
    ) -> dict[str, Any] | Failed:
        """One request, retried with backoff on connection errors, timeouts, 429 and 5xx."""
        import httpx

        last: str = ""
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(BACKOFF * 2 ** (attempt - 1))
            try:
                status, received = await self._fetch(client, "POST", path, body)
            except TimeoutError:
                last = self._late
                continue
            except TooLarge:
                return Failed(self._too_large("a request"))
            except httpx.DecodingError as e:
                return Failed(f"the server's answer cannot be decoded ({_one_line(str(e))})")
            except httpx.TransportError as e:
                if attempt == self.retries and _connection_lost(e):
                    raise self.unreachable(e) from e
                last = f"{type(e).__name__}: {_one_line(str(e))}".rstrip(": ")
                continue
            text = received.decode("utf-8", "replace")
            if status == 429 or status >= 500:
                last = f"the server answered {status}: {_one_line(text)}"
                continue
            if status >= 400:
                return Failed(f"the server answered {status}: {_one_line(text)}")
            try:
                answer = json.loads(text)
            except (ValueError, RecursionError):
                return Failed(f"malformed response from the server: {_one_line(text)}")
            if not isinstance(answer, dict):
                return Failed(f"malformed response from the server: {_one_line(text)}")
            return answer
        return Failed(f"{last} (after {self.retries} retries)", transient=True)
