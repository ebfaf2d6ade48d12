"""A server's address never carries a credential into a run: one holding a user name and
password or a secret query parameter is refused in one line that does not repeat it, and
addresses already recorded are shown without theirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.engines.openai import OpenAIOptions
from offline_recall.engines.probed import ProbedServer, ServerIdentity
from offline_recall.engines.server import Server
from offline_recall.errors import ConfigurationError
from offline_recall.urls import credentials_in, shown_url

SECRET = "hunter2"
ROW = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


@pytest.mark.parametrize(
    ("url", "found", "shown"),
    [
        ("http://127.0.0.1:8000/v1", [], "http://127.0.0.1:8000/v1"),
        (
            f"http://bob:{SECRET}@host:8000/v1",
            ["a user name and password"],
            "http://host:8000/v1",
        ),
        (f"https://{SECRET}@host/v1", ["a user name and password"], "https://host/v1"),
        (
            f"http://host/v1?api_key={SECRET}&mode=fast",
            ["the query parameter api_key"],
            "http://host/v1?api_key=***&mode=fast",
        ),
        (
            f"http://host/v1?X-Amz-Signature={SECRET}&token={SECRET}",
            ["the query parameter X-Amz-Signature", "the query parameter token"],
            "http://host/v1?X-Amz-Signature=***&token=***",
        ),
        ("http://host/v1?keyboard=us", [], "http://host/v1?keyboard=us"),
    ],
)
def test_credentials_are_found_and_left_out_of_what_is_shown(
    url: str, found: list[str], shown: str
) -> None:
    assert credentials_in(url) == found
    assert shown_url(url) == shown
    assert SECRET not in shown_url(url)


@pytest.mark.parametrize(
    "url", [f"http://bob:{SECRET}@127.0.0.1:9/v1", f"http://127.0.0.1:9/v1?key={SECRET}"]
)
def test_the_server_options_refuse_an_address_with_credentials(url: str) -> None:
    with pytest.raises(ValueError, match="--api-key-env") as refused:
        OpenAIOptions(base_url=url)
    assert SECRET not in str(refused.value).split("input_value")[0]
    with pytest.raises(ConfigurationError, match="--api-key-env") as at:
        Server.at(url)
    assert SECRET not in str(at.value)


@pytest.mark.parametrize(
    "given",
    [
        ["--base-url", f"http://bob:{SECRET}@127.0.0.1:9/v1"],
        ["-o", f"base_url=http://127.0.0.1:9/v1?api_key={SECRET}"],
    ],
)
def test_score_refuses_an_address_with_credentials_and_records_nothing(
    tmp_path: Path, given: list[str]
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(data), "--backend", "openai", *given, "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "which would be recorded with the run" in result.output
    assert "--api-key-env" in result.output
    assert SECRET not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.jsonl"]


def _scored(tmp_path: Path) -> Path:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_verify_refuses_an_address_with_credentials_without_printing_it(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    url = f"http://bob:{SECRET}@127.0.0.1:9/v1"
    result = CliRunner().invoke(main, ["verify", str(out), "--base-url", url])
    assert result.exit_code == 1
    assert "--base-url holds a user name and password" in result.output
    assert SECRET not in result.output


def test_verify_shows_a_recorded_address_without_its_credentials(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    path = out.with_name(out.name + ".manifest.json")
    manifest = json.loads(path.read_text())
    recorded = f"http://bob:{SECRET}@10.0.0.1:8000/v1?token={SECRET}"
    manifest["spec"]["engine"] = {"name": "openai", "options": {"base_url": recorded}}
    path.write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 1
    assert "records as http://10.0.0.1:8000/v1?token=***" in result.output
    assert SECRET not in result.output


def test_the_server_cache_records_and_shows_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path))
    identity = ServerIdentity(
        base_url=f"http://bob:{SECRET}@host:8000/v1",
        endpoint="completions",
        served_model="m",
        owned_by=None,
        root=None,
        max_model_len=None,
        model_fingerprint="f",
        library_version="0",
        dialects="d",
    )
    servers = tmp_path / "servers"
    servers.mkdir()
    entry = ProbedServer(identity=identity, dialect="vllm")
    (servers / "crafted.json").write_text(entry.model_dump_json())
    info = CliRunner().invoke(main, ["cache", "info"])
    assert info.exit_code == 0, info.output
    assert "http://host:8000/v1 completions m: vllm" in info.output
    assert SECRET not in info.output
