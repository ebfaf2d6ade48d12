"""The service's HTTP side (Starlette): `POST /score/{scorer id}` and `GET /health`.

A score request's body is one run (see `requests.py`); the answer is the scorer's result as
`score` writes it under `results.<scorer id>` (`score`, `reason`, `status`, the verdicts, the
model fingerprint, prompt version and judge profile). Every failure is that request's own
answer, `{"error": "..."}` with its status: 400 a run that cannot be read, 401 a missing or
wrong bearer token, 403 a `Host` that is not the service's and 415 a body that is not
`application/json` (both from `guard.py`, before the application), 404 a scorer the service
does not run, 408 a body that did not arrive in time, 413 a body over the bound or a run
asking more work than the service's limits (naming the limit), 500 a batch that failed to
score, 503 a service stopping or holding its most connections. A request whose client
disconnects is dropped before it is scored.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..frozen import Frozen
from ..runs.spec import RunSpec
from ..scorer.registry import SCORERS, scorer_kind
from ..scorer.results import ScoreResult
from . import MAX_CHARACTERS, MAX_CONNECTIONS, MAX_WORK, READ_TIMEOUT
from .batcher import Batcher, ScoringFailed, ServiceStopping
from .guard import Guard
from .requests import RequestError, ScoreRequest, read_request


@dataclass(frozen=True)
class Settings:
    """What a request must satisfy besides its run: the bearer token (None: none asked), the
    largest body accepted, in bytes, the service's bounds (see `service`'s constants), and the
    names its `Host` may give besides loopback and the address it reached (`guard.py`)."""

    token: str | None
    max_request_bytes: int
    hosts: tuple[str, ...] = ()
    """The `--host` the service listens on and each `--allow-host`."""
    read_timeout: float = READ_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    max_work: int = MAX_WORK
    max_characters: int = MAX_CHARACTERS


class ScorerIdentity(Frozen):
    """What decides one scorer's results on this service."""

    prompt_version: str
    judge_profile: str
    """The judge profile's digest, as each result records it."""
    profile_origin: str
    scale: float


class Scored(Frozen):
    """What a service has scored since it started."""

    runs: int
    batches: int


class Limits(Frozen):
    """The service's bounds, as `GET /health` says them."""

    read_timeout: float
    max_connections: int
    max_work: int
    max_characters: int


class Health(Frozen):
    """What `GET /health` answers: the run a service scores with, and what it has scored."""

    status: str = "ok"
    model: str
    model_fingerprint: str
    engine: str
    judge_model: str | None
    judge_model_fingerprint: str | None
    library_version: str
    spec_digest: str
    scorers: dict[str, ScorerIdentity]
    max_request_bytes: int
    limits: Limits
    scored: Scored

    @classmethod
    def of(cls, spec: RunSpec, settings: Settings, scored: Scored) -> Health:
        return cls(
            model=spec.model,
            model_fingerprint=spec.model_fingerprint,
            engine=spec.engine.name,
            judge_model=None if spec.judge is None else spec.judge.model,
            judge_model_fingerprint=None if spec.judge is None else spec.judge.model_fingerprint,
            library_version=spec.library_version,
            spec_digest=spec.digest,
            scorers={
                s.id: ScorerIdentity(
                    prompt_version=s.setup.prompt_version,
                    judge_profile=s.setup.judge_profile.digest,
                    profile_origin=s.profile_origin.value,
                    scale=s.setup.scale or 1.0,
                )
                for s in spec.scorers
            },
            max_request_bytes=settings.max_request_bytes,
            limits=Limits(
                read_timeout=settings.read_timeout,
                max_connections=settings.max_connections,
                max_work=settings.max_work,
                max_characters=settings.max_characters,
            ),
            scored=scored,
        )


def authorized(header: str | None, token: str | None) -> bool:
    """Whether an `Authorization` header carries the bearer `token` (always, when None)."""
    if token is None:
        return True
    scheme, _, given = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _unauthorized() -> JSONResponse:
    return _error(
        401,
        "missing or wrong bearer token: send `Authorization: Bearer <token>`",
        {"WWW-Authenticate": "Bearer"},
    )


async def _body(request: Request, limit: int, timeout: float) -> bytes:
    """The request's body, refused with 413 once it is over `limit` bytes (before it is read,
    when its declared length says so), and with 408 if it has not all arrived `timeout`
    seconds after its head."""
    too_big = RequestError(413, f"the request is over {limit} bytes; send a smaller run")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_big
    size = 0
    chunks: list[bytes] = []
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise too_big
                chunks.append(chunk)
    except TimeoutError:
        raise RequestError(408, f"the request's body did not arrive within {timeout:g} s") from None
    return b"".join(chunks)


def _characters(value: Any) -> int:
    """The characters of text in a field's value (a value that is not text, as JSON)."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return sum(len(v) for v in value)
    return len(json.dumps(value, ensure_ascii=False))


def check_work(run: ScoreRequest, claims: int, settings: Settings) -> int:
    """The judgments `run` may ask (its chunks times `claims`, at least 1), refused with 413
    naming the limit when over the service's work or text bounds."""
    row = run.row
    chunks = len(row.context or [])
    work = max(1, chunks * claims)
    if work > settings.max_work:
        raise RequestError(
            413,
            f"the run asks up to {work} judgments ({chunks} chunks by up to {claims} claims each), "
            f"over this service's limit of {settings.max_work}: send at most "
            f"{max(1, settings.max_work // claims)} chunks",
        )
    text = sum(_characters(v) for v in (row.input, row.output, row.ground_truth, row.context))
    if text > settings.max_characters:
        raise RequestError(
            413,
            f"the run holds {text} characters of text, over this service's limit of "
            f"{settings.max_characters}: send a shorter run",
        )
    return work


async def _disconnected(request: Request) -> None:
    """Returns once the client of `request` (whose body was read) has gone away."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _scale(value: float | None) -> float:
    return value or 1.0  # 0 means 1, as in Mastra


@dataclass(frozen=True)
class _Routes:
    """What the service answers from: `spec`'s scorers, each with its scale, its bound on
    claims a run and whether it reads the context; the batcher that scores; the settings."""

    spec: RunSpec
    batcher: Batcher
    settings: Settings
    scales: dict[str, float]
    claims: dict[str, int]
    reads_context: dict[str, bool]

    @classmethod
    def of(cls, spec: RunSpec, batcher: Batcher, settings: Settings) -> _Routes:
        return cls(
            spec=spec,
            batcher=batcher,
            settings=settings,
            scales={s.id: _scale(s.setup.scale) for s in spec.scorers},
            claims={s.id: max(1, s.setup.max_items) for s in spec.scorers},
            reads_context={sid: scorer_kind(sid).reads_context() for sid in spec.scorer_ids},
        )

    def authorized(self, request: Request) -> bool:
        return authorized(request.headers.get("authorization"), self.settings.token)

    async def get_health(self, request: Request) -> Response:
        if not self.authorized(request):
            return _unauthorized()
        scored = Scored(runs=self.batcher.runs, batches=self.batcher.batches)
        return JSONResponse(Health.of(self.spec, self.settings, scored).model_dump(mode="json"))

    async def post_score(self, request: Request) -> Response:
        if not self.authorized(request):
            return _unauthorized()
        sid = request.path_params["scorer"]
        if (refused := self.unserved(sid)) is not None:
            return refused
        scoring = await self.submit(request, sid)
        if isinstance(scoring, Response):
            return scoring
        return await _answer(request, scoring)

    def unserved(self, sid: str) -> Response | None:
        """The answer to a request for a scorer the service does not run; None if it does."""
        if sid in self.scales:
            return None
        served = ", ".join(self.scales)
        if sid not in SCORERS:
            return _error(404, f"unknown scorer {sid!r}; this service runs {served}")
        return _error(404, f"this service runs {served}; start it with --scorer {sid} to serve it")

    async def submit(self, request: Request, sid: str) -> asyncio.Future[ScoreResult] | Response:
        """The request's run read, bounded and queued for scoring; a refusal is its answer."""
        with self.batcher.arriving():
            try:
                run = await self.read_run(request, sid)
                work = check_work(run, self.claims[sid], self.settings)
                return self.batcher.submit(sid, run.row, work)
            except RequestError as e:
                closing = {"Connection": "close"} if e.status == 408 else None
                return _error(e.status, e.message, closing)
            except ClientDisconnect:
                return Response(status_code=400)
            except ServiceStopping as e:
                return _error(503, str(e))

    async def read_run(self, request: Request, sid: str) -> ScoreRequest:
        """The request's run, bounded, read and checked against the scorer's scale."""
        settings, scale = self.settings, self.scales[sid]
        body = await _body(request, settings.max_request_bytes, settings.read_timeout)
        run = read_request(body, self.reads_context[sid])
        asked = _scale(run.scale)
        if run.scale is not None and asked != scale:
            raise RequestError(
                400,
                f"this service scores {sid} on a scale of {scale:g}, the run asks for "
                f"{asked:g}: start it with --scale {asked:g}",
            )
        return run

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.batcher.start()
        try:
            yield
        finally:
            await self.batcher.stop()


async def _answer(request: Request, scoring: asyncio.Future[ScoreResult]) -> Response:
    """The scored run's result, once `scoring` is done; a client that went away first takes
    its request out of the queue."""
    gone = asyncio.ensure_future(_disconnected(request))
    either: set[asyncio.Future[Any]] = {scoring, gone}
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not scoring.done():
            scoring.cancel()  # its client went away: the request leaves the queue
    if scoring.cancelled():
        return Response(status_code=400)
    try:
        result = scoring.result()
    except ScoringFailed as e:
        return _error(500, str(e))
    except ServiceStopping as e:
        return _error(503, str(e))
    return JSONResponse(result.model_dump(mode="json"))


async def _not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    text = "no such endpoint: POST /score/{scorer id} scores a run, GET /health describes it"
    return _error(status, text if status in (404, 405) else str(exc))


def service_app(spec: RunSpec, batcher: Batcher, settings: Settings) -> Starlette:
    """The ASGI application scoring with `batcher` the runs of `spec`'s scorers."""
    served = _Routes.of(spec, batcher, settings)
    routes = [
        Route("/health", served.get_health, methods=["GET"]),
        Route("/score/{scorer}", served.post_score, methods=["POST"]),
    ]
    handlers: dict[Any, Any] = {HTTPException: _not_found}
    guard = Middleware(Guard, hosts=settings.hosts)
    app = Starlette(
        routes=routes, middleware=[guard], exception_handlers=handlers, lifespan=served.lifespan
    )
    app.state.settings = settings  # the connection bounds, read where it is served
    app.state.halt = batcher.halt  # on a stop, before the connections are waited for
    return app
