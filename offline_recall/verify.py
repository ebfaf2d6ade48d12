"""Re-score a recorded run and compare each row's result with the one recorded."""

from __future__ import annotations

import json
import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ._version import __version__
from .errors import ConfigurationError, DatasetError
from .evals import windows
from .formats import open_dataset
from .models import sha256_file
from .results import ResultRecord, read_results
from .run_manifest import RunManifest
from .runner import score_rows
from .scorer import create_context_recall_scorer
from .store import RunStore, default_store_path, manifest_path
from .types import ContextRecallOptions


class Difference(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    line: int
    fields: tuple[str, ...]
    recorded: str
    now: str


class VerifyReport(BaseModel):
    """How many re-scored rows came out byte-identical, and the ones that did not."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    checked: int
    identical: int
    differences: tuple[Difference, ...]


def _as_line(record: ResultRecord) -> str:
    """The record exactly as a JSON Lines result file holds it."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False)


def recorded_run(run: Path) -> tuple[RunManifest, list[ResultRecord]]:
    """The manifest and records of RUN: a result file (with its manifest) or a run store."""
    if run.name.endswith(".run.sqlite"):
        with RunStore(run) as store:
            manifest = store.manifest()
            records = list(store.records())
    else:
        records = read_results(run)
        beside = manifest_path(run)
        manifest = None
        if beside.is_file():
            manifest = RunManifest.model_validate_json(beside.read_text(encoding="utf-8"))
        elif default_store_path(run).is_file():
            with RunStore(default_store_path(run)) as store:
                manifest = store.manifest()
    if manifest is None:
        raise DatasetError(f"{run.name} has no run manifest; verify a run written by `score`")
    return manifest, records


def _fields(a: ResultRecord, b: ResultRecord) -> tuple[str, ...]:
    mine, theirs = a.model_dump(mode="json"), b.model_dump(mode="json")
    return tuple(k for k in mine if mine[k] != theirs[k])


def verify_run(run: Path, sample: int | None = None, seed: int = 0) -> VerifyReport:
    """Re-score RUN's rows (all, or `sample` of them chosen with `seed`) and compare.

    Refused when the library version, model fingerprint, prompt version or input file differs
    from the run's manifest: the comparison would say nothing about repeatability.
    """
    manifest, records = recorded_run(run)
    if manifest.library_version != __version__:
        raise ConfigurationError(
            f"{run.name} was scored by offline-recall {manifest.library_version}, this is "
            f"{__version__}; verify with the version that scored it"
        )
    source = Path(manifest.input_path)
    if not source.is_file() or sha256_file(source) != manifest.input_sha256:
        raise ConfigurationError(
            f"the input {source} is missing or changed since the run (sha256 differs); "
            "verify against the original input"
        )
    scorer = create_context_recall_scorer(
        manifest.model,
        ContextRecallOptions(context_extractor=lambda _i, o: list(o), scale=manifest.scale),
        backend=manifest.backend,
    )
    info = scorer.backend.info
    if (info.fingerprint, info.prompt_version) != (
        manifest.model_fingerprint,
        manifest.prompt_version,
    ):
        raise ConfigurationError(
            f"the model is now {info.fingerprint} with prompts {info.prompt_version}, the run "
            f"used {manifest.model_fingerprint} with {manifest.prompt_version}; "
            "install the run's model to verify it"
        )
    by_line = {r.line: r for r in records}
    lines = sorted(by_line)
    if sample is not None and sample < len(lines):
        lines = sorted(random.Random(seed).sample(lines, sample))
    chosen = set(lines)
    dataset = open_dataset(source, manifest.mapping, manifest.context_separator)
    rows = (r for r in dataset.rows() if r.line in chosen)
    identical = 0
    differences: list[Difference] = []
    for window in windows(rows, info.window):
        for row, result in score_rows(scorer, window):
            now, recorded = ResultRecord.of(row, result), by_line[row.line]
            if _as_line(now) == _as_line(recorded):
                identical += 1
            else:
                differences.append(
                    Difference(
                        line=row.line,
                        fields=_fields(recorded, now),
                        recorded=_as_line(recorded),
                        now=_as_line(now),
                    )
                )
    return VerifyReport(
        checked=identical + len(differences), identical=identical, differences=tuple(differences)
    )
