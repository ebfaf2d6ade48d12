"""One run function over one store protocol: the command line's local and Ray runners and the
Python API claim, resume, score and write the same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import Dataset, open_dataset
from offline_recall.runs.execute import RecordStore, Say, run_dataset
from offline_recall.runs.local import LocalRunner, RunProgress
from offline_recall.runs.resolve import ResolvedRun, resolve_spec
from offline_recall.runs.results import ItemRecord, OutputFormat
from offline_recall.runs.run_manifest import InputSpec, RunIdentity, RunManifest
from offline_recall.runs.spec import RunSpec
from offline_recall.runs.store import RunStore, default_store_path, manifest_path
from offline_recall.runs.summary import Summary

from ..conftest import EXAMPLE


def fake_spec() -> RunSpec:
    return resolve_spec("smollm2-135m-instruct", engine="fake")


def test_the_run_function_writes_what_the_command_line_writes(tmp_path: Path) -> None:
    by_cli = tmp_path / "cli.jsonl"
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--backend", "fake", "--out", str(by_cli)]
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "api.jsonl"
    said: list[str] = []
    with RunStore(default_store_path(out)) as store:
        outcome = run_dataset(
            fake_spec(),
            open_dataset(EXAMPLE),
            InputSpec.of(EXAMPLE),
            LocalRunner(store),
            out,
            keep_records=True,
            say=said.append,
        )
    assert out.read_bytes() == by_cli.read_bytes()
    assert manifest_path(out).is_file() and said == []
    assert [r.line for r in outcome.records] == list(range(1, 13))
    assert outcome.summaries["context-recall-scorer"].items == 12


def test_a_second_run_on_the_store_says_what_it_holds_and_scores_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    spec, dataset, given = fake_spec(), open_dataset(EXAMPLE), InputSpec.of(EXAMPLE)
    with RunStore(default_store_path(out)) as store:
        run_dataset(spec, dataset, given, LocalRunner(store), out)
    first = out.read_bytes()
    said: list[str] = []
    with RunStore(default_store_path(out)) as store:
        run_dataset(spec, dataset, given, LocalRunner(store), out, say=said.append)
    assert out.read_bytes() == first
    assert said == [
        f"resuming: 12 of 12 rows are in the store {default_store_path(out)}; "
        "none is left to score, writing the results"
    ]


@contextmanager
def _failing_progress() -> Iterator[RunProgress]:
    """Progress whose run fails as soon as scoring starts (a model that cannot load)."""
    raise RuntimeError("the model cannot load")
    yield  # pragma: no cover


def test_a_new_local_store_is_removed_when_the_run_fails_before_a_row(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with (
        pytest.raises(RuntimeError, match="cannot load"),
        RunStore(default_store_path(out)) as store,
    ):
        run_dataset(
            fake_spec(),
            open_dataset(EXAMPLE),
            InputSpec.of(EXAMPLE),
            LocalRunner(store, _failing_progress()),
            out,
        )
    assert not default_store_path(out).exists() and not out.exists()


class Recording:
    """A store that records what the run asks of it, and fails where told."""

    def __init__(self, fail_in: str | None = None, held: int = 0) -> None:
        self.calls: list[str] = []
        self._fail_in, self._held = fail_in, held

    def _call(self, name: str) -> None:
        self.calls.append(name)
        if name == self._fail_in:
            raise RuntimeError(f"failed in {name}")

    def claim(self, identity: RunIdentity, manifest: RunManifest, dataset: Dataset) -> None:
        self._call("claim")

    def resuming(self, total: int) -> str | None:
        self._call("resuming")
        return f"held {self._held} of {total}" if self._held else None

    def score(self, spec: RunSpec, dataset: Dataset, say: object) -> None:
        self._call("score")

    def abandon(self) -> None:
        self._call("abandon")

    def finish(
        self, out: Path | None, fmt: OutputFormat, scorer_ids: list[str]
    ) -> dict[str, Summary]:
        self._call(f"finish {fmt.value} {out is not None}")
        return {}

    def records(self) -> Iterator[ItemRecord]:
        self._call("records")
        return iter([])


def test_the_run_claims_resumes_scores_and_writes_in_that_order(tmp_path: Path) -> None:
    store = Recording(held=3)
    said: list[str] = []
    out = tmp_path / "r.parquet"
    typed: RecordStore = store
    run_dataset(
        fake_spec(), open_dataset(EXAMPLE), InputSpec.of(EXAMPLE), typed, out, say=said.append
    )
    assert store.calls == ["claim", "resuming", "score", "finish parquet True"]
    assert said == ["held 3 of 12"] and manifest_path(out).is_file()


@pytest.mark.parametrize("where", ["claim", "score"])
def test_a_failed_run_abandons_the_store_and_writes_nothing(tmp_path: Path, where: str) -> None:
    store = Recording(fail_in=where)
    out = tmp_path / "r.jsonl"
    with pytest.raises(RuntimeError, match=f"failed in {where}"):
        run_dataset(fake_spec(), open_dataset(EXAMPLE), InputSpec.of(EXAMPLE), store, out)
    assert store.calls[-1] == "abandon" and not manifest_path(out).exists()


def test_a_folder_swapped_for_a_link_while_the_run_scores_is_not_written_through(
    tmp_path: Path,
) -> None:
    """The results' folder is checked before scoring and again as the results and the
    manifest are written: a link put in its place meanwhile is refused, its target left empty,
    and the store's lock leaves the folder the store is in."""
    from offline_recall.errors import ConfigurationError

    folder, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    out = folder / "r.jsonl"

    class Swapped(LocalRunner):
        def score(self, run: ResolvedRun, dataset: Dataset, say: Say) -> None:
            super().score(run, dataset, say)
            folder.rename(tmp_path / "moved")
            folder.symlink_to(elsewhere)

    spec, dataset, given = fake_spec(), open_dataset(EXAMPLE), InputSpec.of(EXAMPLE)
    with pytest.raises(ConfigurationError) as refused, RunStore(default_store_path(out)) as store:
        run_dataset(spec, dataset, given, Swapped(store), out)
    assert str(refused.value) == (
        f"the results {out}: the folder {folder} on its way is a symbolic link, which is never "
        "written through; give the path without links"
    )
    assert list(elsewhere.iterdir()) == []
    kept = {p.name for p in (tmp_path / "moved").iterdir()}
    assert "r.jsonl.run.sqlite" in kept and "r.jsonl.run.sqlite.lock" not in kept
    assert "r.jsonl" not in kept and "r.jsonl.manifest.json" not in kept
