"""An engine's own output (its libraries' logging, Python warnings, native writes to the
standard streams, its worker processes) kept in a log file, off the terminal, with the
command's own lines still on it; `--verbose` leaves it all on the terminal."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.engines import ENGINES, Engine
from offline_recall.engines.engine_output import ENGINE_LOGGERS, engine_output

from ..conftest import EXAMPLE

NOISE = "INFO NUMA binding: cores 0-1"


def _noise() -> None:
    """What an engine's libraries say while a model loads: logging, a Python warning, a
    native write to file descriptor 2, and a worker process's own standard error."""
    logging.getLogger("vllm").info(NOISE)
    logging.getLogger("vllm.platforms").warning("Triton is not installed")
    warnings.warn("reduce_op is deprecated", FutureWarning, stacklevel=1)
    os.write(2, b"[W] torch.set_num_threads: native warning\n")
    sys.stderr.write("Loading safetensors checkpoint shards:  50%|#####     | 1/2\r")
    worker = "import sys; sys.stderr.write('engine core worker started\\n')"
    subprocess.run([sys.executable, "-c", worker], check=True)


def test_a_vllm_record_a_warning_a_native_write_and_a_worker_go_to_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "engine.log"
    with engine_output(log) as output:
        _noise()
        print("our own line", file=output.stderr)
    kept = log.read_text()
    shown = capfd.readouterr()
    noise = (NOISE, "Triton is not installed", "reduce_op", "set_num_threads", "shards", "worker")
    for said in noise:
        assert said in kept and said not in shown.err + shown.out, said
    assert output.warnings == 2  # the logged warning and the Python one
    said = output.said()
    assert said is not None and str(log) in said and "2 warnings" in said


def test_everything_is_put_back_when_it_ends(tmp_path: Path) -> None:
    before = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).propagate)
        for n in ENGINE_LOGGERS
    }
    showwarning = warnings.showwarning
    os.environ.pop("VLLM_CONFIGURE_LOGGING", None)
    with engine_output(tmp_path / "engine.log"):
        assert os.environ["VLLM_CONFIGURE_LOGGING"] == "0"  # for a vLLM imported inside
        assert logging.getLogger("vllm").propagate is False
    assert "VLLM_CONFIGURE_LOGGING" not in os.environ
    assert warnings.showwarning is showwarning
    after = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).propagate)
        for n in ENGINE_LOGGERS
    }
    assert after == before


def test_an_empty_log_is_not_left_behind(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    with engine_output(log) as output:
        pass
    assert not log.exists() and output.said() is None


def test_none_leaves_the_output_on_the_terminal(capfd: pytest.CaptureFixture[str]) -> None:
    with engine_output(None) as output:
        os.write(2, b"native\n")
    assert "native" in capfd.readouterr().err and output.said() is None


# The command line ----------------------------------------------------------------------------


@pytest.fixture
def noisy_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake engine, saying what vLLM says while it loads."""
    kind = ENGINES["fake"]

    def start(*args: Any) -> Engine:
        _noise()
        return kind.factory(*args)

    monkeypatch.setitem(ENGINES, "fake", dataclasses.replace(kind, factory=start))


@pytest.mark.usefixtures("noisy_fake")
def test_score_keeps_the_engines_messages_in_a_log_it_names(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    command = ["score", str(EXAMPLE), "--backend", "fake", "--out", str(out), "--no-cache"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    shown = result.output + "".join(capfd.readouterr())
    log = tmp_path / "r.jsonl.engine.log"
    assert NOISE in log.read_text() and "set_num_threads" in log.read_text()
    for said in (NOISE, "Triton", "reduce_op", "set_num_threads", "shards", "worker started"):
        assert said not in shown, said
    named = [line for line in result.output.splitlines() if str(log) in line]
    assert len(named) == 1 and "--verbose" in named[0], result.output
    assert "rows scored 12/12" in result.output and "mean recall" in result.output


@pytest.mark.usefixtures("noisy_fake")
def test_score_verbose_shows_them_and_writes_no_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    command = ["score", str(EXAMPLE), "--backend", "fake", "--out", str(out), "--no-cache"]
    result = CliRunner().invoke(main, [*command, "--verbose"])
    assert result.exit_code == 0, result.output
    assert "set_num_threads" in capfd.readouterr().err
    assert not (tmp_path / "r.jsonl.engine.log").exists()
    assert "engine's own messages" not in result.output


def test_the_engines_page_names_the_logs_the_commands_write() -> None:
    from offline_recall.cli.engine_log import engine_log_path

    page = " ".join(
        (Path(__file__).resolve().parents[2] / "docs" / "engines.md").read_text().split()
    )
    assert f"`{engine_log_path('score', Path('results.jsonl')).name}`" in page
    for command in ("score", "verify", "serve", "models-install"):
        assert f"`{engine_log_path(command).name}`" in page, command
    assert "--verbose" in page
