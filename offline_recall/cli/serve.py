"""`offline-recall serve`: score runs sent over HTTP with one pinned run configuration."""

from __future__ import annotations

import os

import click

from ..service import (
    DEFAULT_PORT,
    MAX_CHARACTERS,
    MAX_CONNECTIONS,
    MAX_REQUEST_BYTES,
    MAX_WORK,
    READ_TIMEOUT,
    TOKEN_ENV,
)
from . import COMMANDS
from .engine_log import engine_log_path, engine_messages
from .options import number_option
from .run_options import RunChoice, resolve_announced, run_options

SERVER_PACKAGES = ("starlette", "uvicorn")


def _require_server() -> None:
    """The server's packages, or one line naming the install command."""
    from importlib.util import find_spec

    from ..errors import MissingExtraError

    for package in SERVER_PACKAGES:
        if find_spec(package) is None:
            raise MissingExtraError(package, "pip install 'offline-recall[serve]'")


def host_warning(host: str, token: str | None) -> str | None:
    """What to say when the service listens beyond this machine; None on loopback."""
    from ..service.listen import is_loopback

    if is_loopback(host):
        return None
    warning = (
        f"warning: --host {host} listens beyond this machine: whoever reaches it can have "
        "text scored by the model"
    )
    if token is None:
        warning += f"; set {TOKEN_ENV} to ask every request for a bearer token"
    return warning


@click.command(short_help=COMMANDS["serve"].help)
@run_options("serve", "; a request asking for another scale is refused")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on. Anything but loopback lets other machines send runs: "
    "a warning says so.",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name clients may address the service by (repeatable), besides 127.0.0.1, "
    "localhost, [::1] and the --host it listens on: a request whose Host header names "
    "anything else is refused with 403, so a web page cannot reach it through a name rebound "
    "to this machine.",
)
@number_option(
    "--port",
    at_least=0,
    at_most=65535,
    default=DEFAULT_PORT,
    help="The port to listen on; 0 picks a free one (the address is printed).",
)
@number_option(
    "--max-request-bytes",
    default=MAX_REQUEST_BYTES,
    help="The largest request body accepted; a larger one is refused with 413.",
)
@number_option(
    "--batch-wait",
    real=True,
    at_least=0,
    default=5.0,
    metavar="MS",
    help="The longest a batch about to start waits for requests still being read to join it.",
)
@number_option(
    "--read-timeout",
    real=True,
    at_least=0,
    above=True,
    default=READ_TIMEOUT,
    metavar="S",
    help="Seconds a request's head, and then its body, may take to arrive; a slower one is "
    "answered 408 and closed.",
)
@number_option(
    "--max-connections",
    default=MAX_CONNECTIONS,
    help="Connections held open at once; one more is answered 503 and closed.",
)
@number_option(
    "--max-work",
    default=MAX_WORK,
    help="The most judgments one run may ask (context chunks times the claims a scorer may "
    "extract); a run asking more is refused with 413. A batch holds at most this much.",
)
@number_option(
    "--max-characters",
    default=MAX_CHARACTERS,
    help="The most characters of text one run may hold; a run holding more is refused with 413.",
)
def serve(
    chosen: RunChoice,
    host: str,
    allowed_hosts: tuple[str, ...],
    port: int,
    max_request_bytes: int,
    batch_wait: float,
    read_timeout: float,
    max_connections: int,
    max_work: int,
    max_characters: int,
) -> None:
    """Score Mastra-shaped runs sent over HTTP, with the run `score` would make of the same
    options: one model, engine, scorers and judge profiles, loaded once.

    `POST /score/SCORER_ID` with a JSON object {input, output, groundTruth, context} answers
    the scorer's result as `score` writes it for the same row (score, reason, status,
    verdicts). `GET /health` says which model, prompt versions and judge profiles score.
    Requests that arrive together are scored in one batch. It listens on 127.0.0.1 unless
    --host says otherwise; when the environment variable OFFLINE_RECALL_SERVE_TOKEN is set,
    every request must carry `Authorization: Bearer <its value>`. A request must name the
    service in its Host header (its address, localhost, or a name given with --allow-host), and
    a POST must be `Content-Type: application/json`, so that a web page cannot use it. The
    address is printed on standard output once the model is loaded; Ctrl-C stops it.
    """
    _require_server()
    from rich.console import Console
    from rich.text import Text

    from ..runs.score import session
    from ..service.app import Settings, service_app
    from ..service.batcher import Batcher, Worker
    from ..service.listen import bind, serve_socket, url_of

    console = Console(stderr=True)
    token = os.environ.get(TOKEN_ENV) or None
    warning = host_warning(host, token)
    if warning is not None:
        console.print(Text(warning, style="yellow"), soft_wrap=True)
    run = resolve_announced(console, chosen, "serve")
    spec = run.spec
    sock = bind(host, port)
    worker = Worker()
    log = None if chosen.verbose else engine_log_path("serve")
    try:
        with engine_messages(console, log) as output:
            scoring = worker.call(lambda: session(run))
            try:
                batcher = Batcher(
                    scoring,
                    worker,
                    spec.digest,
                    size=scoring.window,
                    wait=batch_wait / 1000,
                    work=max_work,
                )
                settings = Settings(
                    token=token,
                    max_request_bytes=max_request_bytes,
                    hosts=(host, *allowed_hosts),
                    read_timeout=read_timeout,
                    max_connections=max_connections,
                    max_work=max_work,
                    max_characters=max_characters,
                )
                app = service_app(spec, batcher, settings)
                click.echo(f"listening on {url_of(sock)}", file=output.stdout)
                serve_socket(app, sock)
            finally:
                worker.call(scoring.close)
    finally:
        worker.shutdown()
        sock.close()
