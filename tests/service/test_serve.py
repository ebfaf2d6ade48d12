"""`offline-recall serve` on the fake engine: a served result is the one `score` writes for the
same row, concurrent clients each get their own, and every bad request is its own answer."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from ..conftest import EXAMPLE, run_cli
from ..serving import ALL_SCORERS, serving

LIMIT = 64 * 1024
"""The request bound of the service under test, in bytes."""


def example_rows() -> list[dict[str, Any]]:
    """The example's rows with an output (so every scorer reads what it needs) and one row
    without a ground truth."""
    rows = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.pop("id")
        row["output"] = f"As far as I know: {row['groundTruth'].split('.')[0]}."
    rows.append({"input": "Who built it?", "output": "Nobody knows.", "context": ["A wall."]})
    return rows


def scored_by_cli(rows: list[dict[str, Any]], folder: Path, scorers: tuple[str, ...]) -> list[Any]:
    """Each row's results as `offline-recall score --backend fake` writes them."""
    data = folder / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = folder / "results.jsonl"
    run_cli(
        "score", str(data), "--backend", "fake", "--scorer", ",".join(scorers), "--out", str(out)
    )
    return [json.loads(line)["results"] for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    with serving(
        "--backend", "fake", "--scorer", ",".join(ALL_SCORERS), "--max-request-bytes", str(LIMIT)
    ) as url:
        yield url


JSON = {"Content-Type": "application/json"}


def post(url: str, scorer: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {**JSON, **(headers or {})}
    return httpx.post(f"{url}/score/{scorer}", content=content, headers=sent, timeout=60)


def test_a_served_result_is_the_one_score_writes(service: str, tmp_path: Path) -> None:
    rows = example_rows()
    expected = scored_by_cli(rows, tmp_path, ALL_SCORERS)
    for row, results in zip(rows, expected, strict=True):
        for sid in ALL_SCORERS:
            answer = post(service, sid, row)
            assert answer.status_code == 200, answer.text
            assert answer.json() == results[sid], (sid, row)
            assert json.dumps(answer.json()["reason"]) == json.dumps(results[sid]["reason"])


def test_a_run_without_ground_truth_scores_0_as_in_mastra(service: str) -> None:
    run = {"input": "Where is it?", "output": "In Paris.", "context": ["Paris is in France."]}
    for truth in ({}, {"groundTruth": None}, {"groundTruth": ""}):
        answer = post(service, "context-recall-scorer", {**run, **truth}).json()
        assert (answer["score"], answer["status"]) == (0.0, "no_ground_truth"), truth
        assert "no ground truth" in answer["reason"]


def test_32_concurrent_clients_each_get_their_own_result(service: str, tmp_path: Path) -> None:
    """160 distinct runs from 32 clients at once: each answer is its own run's, none is lost
    or given twice, and the runs were scored in batches."""
    rows = [
        {
            "input": f"What is item {n}?",
            "groundTruth": f"Item {n} is made of cedar. Item {n} was built in {1800 + n}.",
            "context": [f"Item {n} is made of cedar and pine."],
        }
        for n in range(160)
    ]
    expected = scored_by_cli(rows, tmp_path, ("context-recall-scorer",))
    before = httpx.get(f"{service}/health").json()["scored"]
    answers: dict[int, Any] = {}
    lock = threading.Lock()

    def client(first: int) -> None:
        with httpx.Client(timeout=60) as http:
            for n in range(first, len(rows), 32):
                answer = http.post(f"{service}/score/context-recall-scorer", json=rows[n])
                with lock:
                    assert n not in answers
                    answers[n] = answer.json() if answer.status_code == 200 else answer.text

    threads = [threading.Thread(target=client, args=(k,)) for k in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == list(range(len(rows)))
    for n, results in enumerate(expected):
        assert answers[n] == results["context-recall-scorer"], n
    after = httpx.get(f"{service}/health").json()["scored"]
    assert after["runs"] - before["runs"] == len(rows)
    assert after["batches"] - before["batches"] < len(rows)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"{not json", "the body is not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"input": "q", "groundTruth": "a", "context": "one chunk"}', "list of strings"),
        (b'{"input": "q", "groundTruth": "a"}', "no `context`"),
        (b'{"question": "q", "context": ["c"]}', "unknown field 'question'"),
        (b'{"groundTruth": "a", "ground_truth": "a", "context": ["c"]}', "both"),
        (b'{"groundTruth": "a", "context": ["c"], "scale": "big"}', "`scale` must be"),
        (b'{"groundTruth": "a", "context": ["c"], "scale": 10}', "--scale 10"),
        (b"[" * 5000 + b"]" * 5000, "nested"),
    ],
)
def test_a_malformed_request_is_its_own_400(service: str, body: bytes, says: str) -> None:
    answer = post(service, "context-recall-scorer", body)
    assert answer.status_code == 400, answer.text
    assert says in answer.json()["error"]
    assert httpx.get(f"{service}/health").status_code == 200


def test_an_unknown_scorer_or_endpoint_says_what_the_service_runs(service: str) -> None:
    unknown = post(service, "nope-scorer", {"context": ["c"]})
    assert unknown.status_code == 404
    assert "unknown scorer 'nope-scorer'" in unknown.json()["error"]
    assert "context-recall-scorer" in unknown.json()["error"]
    assert httpx.get(f"{service}/score").json()["error"].startswith("no such endpoint")
    assert httpx.get(f"{service}/score/context-recall-scorer").status_code == 405


def test_a_web_page_cannot_post_work_or_read_answers(service: str) -> None:
    """A page's "simple" cross-site request (a form's text/plain POST) is refused with 415,
    a request addressed to another name (DNS rebinding) with 403; the service goes on."""
    run = json.dumps({"groundTruth": "The sky is blue.", "context": ["The sky is blue."]})
    scored = f"{service}/score/context-recall-scorer"
    simple = httpx.post(scored, content=run, headers={"Content-Type": "text/plain"}, timeout=60)
    assert simple.status_code == 415
    assert "application/json" in simple.json()["error"]
    rebound = {**JSON, "Host": f"rebound.example:{urlsplit(service).port}"}
    assert httpx.post(scored, content=run, headers=rebound, timeout=60).status_code == 403
    assert httpx.get(f"{service}/health", headers=rebound, timeout=60).status_code == 403
    assert post(service, "context-recall-scorer", json.loads(run)).json()["score"] == 1.0


def _raw(url: str) -> socket.socket:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=10)


def test_a_client_that_disconnects_mid_request_leaves_the_service_serving(service: str) -> None:
    body = json.dumps({"groundTruth": "The sky is blue.", "context": ["The sky is blue."]})
    head = (
        "POST /score/context-recall-scorer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n"
    )
    with _raw(service) as half:  # gone halfway through its body
        half.sendall(head.format(len(body)).encode() + body[:10].encode())
    with _raw(service) as whole:  # gone before its answer
        whole.sendall(head.format(len(body)).encode() + body.encode())
    answer = post(service, "context-recall-scorer", json.loads(body))
    assert answer.status_code == 200
    assert answer.json()["score"] == 1.0


def test_a_request_over_the_bound_is_refused_with_413(service: str) -> None:
    run = {"groundTruth": "The sky is blue.", "context": ["The sky is blue."]}
    text = json.dumps(run)
    fits = text[:-1] + " " * (LIMIT - len(text)) + "}"
    assert post(service, "context-recall-scorer", fits.encode()).status_code == 200
    declared = post(service, "context-recall-scorer", (fits + " ").encode())
    assert declared.status_code == 413, declared.text
    assert f"over {LIMIT} bytes" in declared.json()["error"]

    def chunks() -> Iterator[bytes]:  # no declared length: counted as it comes
        yield fits.encode()
        yield b" "

    scored = f"{service}/score/context-recall-scorer"
    streamed = httpx.post(scored, content=chunks(), headers=JSON, timeout=60)
    assert streamed.status_code == 413
    assert httpx.get(f"{service}/health").status_code == 200


def _listening(port: int) -> list[str]:
    """The local addresses of the sockets listening on `port` (Linux's /proc/net tables)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc/net/tcp")
def test_it_listens_on_loopback_only(service: str) -> None:
    port = urlsplit(service).port
    assert port is not None
    assert urlsplit(service).hostname == "127.0.0.1"
    assert _listening(port) == ["0100007F"]  # 127.0.0.1, and nothing else


def test_the_health_endpoint_names_the_run(service: str, tmp_path: Path) -> None:
    health = httpx.get(f"{service}/health").json()
    (results,) = scored_by_cli(example_rows()[:1], tmp_path, ALL_SCORERS)
    assert health["model_fingerprint"] == results["context-recall-scorer"]["model_fingerprint"]
    assert health["engine"] == "fake"
    for sid in ALL_SCORERS:
        assert health["scorers"][sid]["prompt_version"] == results[sid]["prompt_version"]
        assert health["scorers"][sid]["judge_profile"] == results[sid]["judge_profile"]
    assert health["max_request_bytes"] == LIMIT


def test_a_bearer_token_is_asked_when_the_environment_sets_one() -> None:
    run = {"groundTruth": "The sky is blue.", "context": ["The sky is blue."]}
    with serving("--backend", "fake", env={"OFFLINE_RECALL_SERVE_TOKEN": "s3cret"}) as url:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            refused = post(url, "context-recall-scorer", run, headers=headers)
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"] == "Bearer"
            assert httpx.get(f"{url}/health", headers=headers).status_code == 401
        right = {"Authorization": "Bearer s3cret"}
        assert post(url, "context-recall-scorer", run, headers=right).json()["score"] == 1.0
        assert httpx.get(f"{url}/health", headers=right).json()["status"] == "ok"
