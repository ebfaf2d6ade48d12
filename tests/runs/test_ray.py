"""The Ray runner on a local Ray (2 CPUs, started once for these tests): the same records as the
local runner, in order, through a killed worker, a resumed run and the Python entry point."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from offline_recall.cli import main
from offline_recall.runs.ray_dataset import score_dataset
from offline_recall.runs.resolve import resolve_spec

from ..conftest import EXAMPLE
from ..ray_workers import KILL

ray = pytest.importorskip(
    "ray",
    reason="Ray is an optional extra: `make setup-ray` (or pip install 'offline-recall[ray]')",
)

ROOT = Path(__file__).resolve().parents[2]
ROWS = 300


@pytest.fixture(scope="module")
def local_ray(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A local Ray, started once and stopped when these tests end (its processes would
    otherwise hold memory through the vLLM tests); returns the file that, once created, kills
    one worker."""
    marker = tmp_path_factory.mktemp("ray") / "kill-one-worker"
    ray.shutdown()  # a Ray another test left running would refuse this one's options
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {KILL: str(marker), "PYTHONPATH": str(ROOT)},
            "worker_process_setup_hook": "tests.ray_workers.setup",
        },
    )
    yield marker
    ray.shutdown()


def _records(rows: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(rows):
        truth = f"Item {i} is red. Item {i} weighs {i} grams. It was made in {1900 + i}."
        context = [f"Item {i} is red and weighs {i} grams.", f"Unrelated text number {i}."]
        out.append({"id": f"row-{i}", "groundTruth": truth, "context": context})
    return out


def _score(*args: str) -> Result:
    result = CliRunner().invoke(main, ["score", *args, "--backend", "fake"])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """JSON Lines with a line that is not JSON and one without a context among good rows."""
    path = tmp_path_factory.mktemp("data") / "data.jsonl"
    lines = [json.dumps(r) for r in _records(ROWS)]
    lines[41] = "{not json"
    lines[42] = json.dumps({"id": "no-context", "groundTruth": "A fact."})
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def local(data: Path) -> Path:
    out = data.with_name("local.jsonl")
    _score(str(data), "--out", str(out))
    return out


@pytest.fixture(scope="module")
def killed(local_ray: Path, data: Path) -> tuple[Path, Result]:
    """A Ray run with two workers, one of them killed mid-shard."""
    local_ray.touch()
    out = data.with_name("ray.jsonl")
    result = _score(str(data), "--runner", "ray", "--workers", "2", "--out", str(out))
    return out, result


def test_a_killed_worker_loses_nothing_and_the_records_are_the_local_runners(
    local_ray: Path, killed: tuple[Path, Result], local: Path
) -> None:
    out, result = killed
    assert not local_ray.exists() and Path(f"{local_ray}.taken").exists(), "no worker was killed"
    assert out.read_bytes() == local.read_bytes()
    lines = [json.loads(t) for t in out.read_text().splitlines()]
    assert [r["line"] for r in lines] == list(range(1, ROWS + 1))
    errors = [r["results"]["context-recall-scorer"]["error"] for r in lines[41:43]]
    assert errors[0].startswith("not valid JSON")
    assert errors[1].startswith("missing field 'context' (fields found: id, groundTruth)")
    assert "failed" in result.output and "rows scored" in result.output

    for run in (out, out.with_name(out.name + ".shards")):
        verified = CliRunner().invoke(main, ["verify", str(run), "--sample", "20"])
        assert verified.exit_code == 0 and "20 identical" in verified.output, verified.output
    report = CliRunner().invoke(main, ["report", str(out), "--out", str(out.with_suffix(".html"))])
    assert report.exit_code == 0, report.output


def test_a_rerun_scores_only_missing_shards_and_a_changed_spec_is_refused(
    killed: tuple[Path, Result], local: Path, data: Path
) -> None:
    out, _ = killed
    shards = out.with_name(out.name + ".shards")
    files = sorted(shards.glob("shard-*.parquet"))
    assert len(files) >= 4
    lost = files[1::3]
    kept = {p: p.stat().st_mtime_ns for p in files if p not in lost}
    for p in lost:
        p.unlink()
    out.unlink()

    result = _score(str(data), "--runner", "ray", "--workers", "2", "--out", str(out))
    assert "resuming:" in result.output
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items()), "a committed shard was redone"
    assert out.read_bytes() == local.read_bytes()

    # every shard is committed: another output format is written from them without scoring
    local_parquet, ray_parquet = out.with_name("local.parquet"), out.with_name("ray.parquet")
    _score(str(data), "--out", str(local_parquet))
    shards_option = ["--shards", str(shards)]
    _score(str(data), "--runner", "ray", *shards_option, "--out", str(ray_parquet))
    assert pq.read_table(ray_parquet).equals(pq.read_table(local_parquet))
    unmerged = out.with_name("unmerged.jsonl")
    result = _score(
        str(data), "--runner", "ray", *shards_option, "--no-merge", "--out", str(unmerged)
    )
    assert not unmerged.exists() and f"shards: {shards}" in result.output

    command = ["score", str(data), "--backend", "fake", "--runner", "ray", "--scale", "2"]
    changed = CliRunner().invoke(main, [*command, *shards_option, "--out", str(out)])
    assert changed.exit_code == 1
    assert "hold another run" in changed.output and "scale" in changed.output


def test_the_python_entry_point_scores_a_ray_dataset_as_a_parquet_run(
    local_ray: Path, tmp_path: Path
) -> None:
    records = _records(40)
    records[7]["context"] = None  # a row error
    path = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist(records), path)
    expected = tmp_path / "local.parquet"
    _score(str(path), "--out", str(expected))

    spec = resolve_spec(engine="fake")
    scored = score_dataset(ray.data.from_items(records), spec)
    rows = sorted(scored.take_all(), key=lambda r: r["line"])
    assert rows == pq.read_table(expected).to_pylist()


@pytest.mark.model
def test_the_embedded_model_scores_the_same_on_ray(local_ray: Path, tmp_path: Path) -> None:
    data = tmp_path / "example.jsonl"
    data.write_text(EXAMPLE.read_text().splitlines(keepends=True)[0] + "{not json\n")
    local, on_ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    common = ["score", str(data), "--no-cache"]
    assert CliRunner().invoke(main, [*common, "--out", str(local)]).exit_code == 0
    result = CliRunner().invoke(main, [*common, "--runner", "ray", "--out", str(on_ray)])
    assert result.exit_code == 0, result.output
    assert on_ray.read_bytes() == local.read_bytes()
    first = json.loads(local.read_text().splitlines()[0])["results"]["context-recall-scorer"]
    assert first["status"] == "ok" and first["verdicts"]
