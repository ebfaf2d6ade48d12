"""The service's HTTP side (Starlette): `POST /score/{scorer id}` and `GET /health`.

A score request's body is one run (see `requests.py`); the answer is the scorer's result as
`score` writes it under `results.<scorer id>` (`score`, `reason`, `status`, the verdicts, the
model fingerprint, prompt version and judge profile). Every failure is that request's own
answer, `{"error": "..."}` with its status: 400 a run that cannot be read, 401 a missing or
wrong bearer token, 404 a scorer the service does not run, 413 a body over the bound, 500 a
batch that failed to score, 503 a service stopping. A request whose client disconnects is
dropped before it is scored.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..frozen import Frozen
from ..runs.spec import RunSpec
from ..scorer.registry import SCORERS, scorer_kind
from .batcher import Batcher, ScoringFailed, ServiceStopping
from .requests import RequestError, ScoreRequest, read_request


@dataclass(frozen=True)
class Settings:
    """What a request must satisfy besides its run: the bearer token (None: none asked) and
    the largest body accepted, in bytes."""

    token: str | None
    max_request_bytes: int


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


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, refused with 413 once it is over `limit` bytes (before it is read,
    when its declared length says so)."""
    too_big = RequestError(413, f"the request is over {limit} bytes; send a smaller run")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_big
    size = 0
    chunks: list[bytes] = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


async def _disconnected(request: Request) -> None:
    """Returns once the client of `request` (whose body was read) has gone away."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _scale(value: float | None) -> float:
    return value or 1.0  # 0 means 1, as in Mastra


def service_app(spec: RunSpec, batcher: Batcher, settings: Settings) -> Starlette:
    """The ASGI application scoring with `batcher` the runs of `spec`'s scorers."""
    scales = {s.id: _scale(s.setup.scale) for s in spec.scorers}
    reads_context = {sid: scorer_kind(sid).reads_context() for sid in spec.scorer_ids}

    async def get_health(request: Request) -> Response:
        if not authorized(request.headers.get("authorization"), settings.token):
            return _unauthorized()
        scored = Scored(runs=batcher.runs, batches=batcher.batches)
        return JSONResponse(Health.of(spec, settings, scored).model_dump(mode="json"))

    def unserved(sid: str) -> Response | None:
        """The answer to a request for a scorer the service does not run; None if it does."""
        if sid in scales:
            return None
        served = ", ".join(scales)
        if sid not in SCORERS:
            return _error(404, f"unknown scorer {sid!r}; this service runs {served}")
        return _error(404, f"this service runs {served}; start it with --scorer {sid} to serve it")

    async def read_run(request: Request, sid: str) -> ScoreRequest:
        """The request's run, bounded, read and checked against the scorer's scale."""
        body = await _body(request, settings.max_request_bytes)
        run = read_request(body, reads_context[sid])
        asked = _scale(run.scale)
        if run.scale is not None and asked != scales[sid]:
            raise RequestError(
                400,
                f"this service scores {sid} on a scale of {scales[sid]:g}, the run asks for "
                f"{asked:g}: start it with --scale {asked:g}",
            )
        return run

    async def post_score(request: Request) -> Response:
        if not authorized(request.headers.get("authorization"), settings.token):
            return _unauthorized()
        sid = request.path_params["scorer"]
        if (refused := unserved(sid)) is not None:
            return refused
        with batcher.arriving():
            try:
                scoring = batcher.submit(sid, (await read_run(request, sid)).row)
            except RequestError as e:
                return _error(e.status, e.message)
            except ClientDisconnect:
                return Response(status_code=400)
            except ServiceStopping as e:
                return _error(503, str(e))
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

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        text = "no such endpoint: POST /score/{scorer id} scores a run, GET /health describes it"
        return _error(status, text if status in (404, 405) else str(exc))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        batcher.start()
        try:
            yield
        finally:
            await batcher.stop()

    routes = [
        Route("/health", get_health, methods=["GET"]),
        Route("/score/{scorer}", post_score, methods=["POST"]),
    ]
    handlers: dict[Any, Any] = {HTTPException: not_found}
    return Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
