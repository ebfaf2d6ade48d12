"""Re-score a recorded run from its spec and compare each row's record with the one recorded."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .._version import __version__
from ..data.dataset import open_dataset
from ..engines import engine_kind
from ..engines.wheel_parts import sha256_file
from ..errors import ConfigurationError, DatasetError
from ..printable import printable
from ..scorer.registry import reads_context
from ..urls import shown_url
from .differences import installed_versions
from .local import RunProgress, score_window
from .results import ItemRecord, as_json_line, read_results
from .run_manifest import RunManifest
from .session import session
from .shard_folder import ShardFolder
from .spec import EngineSpec, RunSpec
from .store import RunStore, default_store_path, manifest_path, read_manifest
from .summary import windows


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
    environment: tuple[str, ...] = ()
    """Engine packages whose installed versions differ from the run's."""


class Contact(BaseModel):
    """The model servers `verify` may contact, and the variables holding their keys: only
    what its own command line names, never what a recorded run says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = None
    api_key_env: str | None = None
    judge_base_url: str | None = None
    judge_api_key_env: str | None = None


def _contacting(engine: EngineSpec, url: str | None, key: str | None, flag: str) -> EngineSpec:
    """`engine` re-pointed at the server given on the command line (with the key named
    there, or none); refused when the run used a server and none is given."""
    options = dict(engine.options)
    if "base_url" not in options:
        return engine
    if url is None:
        raise ConfigurationError(
            "the run was scored through a model server it records as "
            f"{printable(shown_url(str(options['base_url'])))}; "
            f"verify contacts only a server named on its command line: pass {flag} URL "
            "(and the API key's variable, if it needs one)"
        )
    options["base_url"] = url
    options["api_key_env"] = key
    return engine.model_copy(update={"options": options})


def contacted(spec: RunSpec, contact: Contact) -> RunSpec:
    """`spec` with every server it names replaced by the ones in `contact`."""
    engine = _contacting(spec.engine, contact.base_url, contact.api_key_env, "--base-url")
    judge = spec.judge
    if judge is not None:
        judge_engine = _contacting(
            judge.engine, contact.judge_base_url, contact.judge_api_key_env, "--judge-base-url"
        )
        judge = judge.model_copy(update={"engine": judge_engine})
    return spec.model_copy(update={"engine": engine, "judge": judge})


def recorded_run(run: Path) -> tuple[RunManifest, list[ItemRecord]]:
    """The manifest and records of RUN: a result file (with its manifest), a run store, or a
    Ray run's folder of shards."""
    if run.is_dir():
        folder = ShardFolder(run)
        manifest = folder.manifest()
        records = [r for index in sorted(folder.committed()) for r in folder.read(index)]
    elif run.name.endswith(".run.sqlite"):
        with RunStore(run, read_only=True) as store:
            manifest = store.manifest()
            records = list(store.records())
    else:
        records = read_results(run)
        beside = manifest_path(run)
        manifest = None
        if beside.is_file():
            manifest = read_manifest(beside)
        elif default_store_path(run).is_file():
            with RunStore(default_store_path(run), read_only=True) as store:
                manifest = store.manifest()
    if manifest is None:
        raise DatasetError(f"{run.name} has no run manifest; verify a run written by `score`")
    return manifest, records


def _fields(a: ItemRecord, b: ItemRecord) -> tuple[str, ...]:
    mine, theirs = a.model_dump(mode="json"), b.model_dump(mode="json")
    out: list[str] = []
    for key in mine:
        if key == "results":
            for sid in dict.fromkeys([*mine[key], *theirs[key]]):
                ra, rb = mine[key].get(sid, {}), theirs[key].get(sid, {})
                out += [f"{sid}.{k}" for k in dict.fromkeys([*ra, *rb]) if ra.get(k) != rb.get(k)]
        elif mine[key] != theirs[key]:
            out.append(key)
    return tuple(out)


def verify_run(
    run: Path,
    sample: int | None = None,
    seed: int = 0,
    progress: RunProgress | None = None,
    contact: Contact | None = None,
) -> VerifyReport:
    """Re-score RUN's rows (all, or `sample` of them chosen with `seed`) with the spec its
    manifest recorded (the same model, engine options, prompts and judge profiles) and compare.

    Refused when the library version, the model or the input file differ from the run's: the
    comparison would say nothing about repeatability. `progress`, if given, is told how the
    re-scoring goes, as a run's is. A run scored through a model server is re-scored through
    the server `contact` names, with the key it names, and refused without one: a recorded
    address is never followed on its own.
    """
    manifest, records = recorded_run(run)
    spec = contacted(manifest.spec, contact or Contact())
    if spec.library_version != __version__:
        raise ConfigurationError(
            f"{run.name} was scored by offline-recall {spec.library_version}, this is "
            f"{__version__}; verify with the version that scored it"
        )
    source = Path(manifest.input.path)
    if not source.is_file() or sha256_file(source) != manifest.input.sha256:
        raise ConfigurationError(
            f"the input {source} is missing or changed since the run (sha256 differs); "
            "verify against the original input"
        )
    installed = installed_versions(engine_kind(spec.engine.name).distributions)
    environment = tuple(
        f"{name} {spec.engine_versions.get(name, 'absent')} -> {installed.get(name, 'absent')}"
        for name in sorted({*installed, *spec.engine_versions})
        if installed.get(name) != spec.engine_versions.get(name)
    )
    by_line = {r.line: r for r in records}
    lines = sorted(by_line)
    if sample is not None and sample < len(lines):
        lines = sorted(random.Random(seed).sample(lines, sample))
    chosen = set(lines)
    dataset = open_dataset(
        source,
        manifest.input.mapping,
        manifest.input.context_separator,
        context_required=reads_context(s.id for s in spec.scorers),
        delimiter=manifest.input.delimiter,
    )
    rows = (r for r in dataset.rows() if r.line in chosen)
    if progress is not None:
        progress.begin(len(lines), 0)
    scoring = session(spec)
    identical = 0
    differences: list[Difference] = []
    try:
        for window in windows(rows, scoring.window):
            if progress is not None:
                progress.window(len(window))
            for now in score_window(scoring, window, spec.digest, progress):
                recorded = by_line[now.line]
                if as_json_line(now) == as_json_line(recorded):
                    identical += 1
                    continue
                differences.append(
                    Difference(
                        line=now.line,
                        fields=_fields(recorded, now),
                        recorded=as_json_line(recorded),
                        now=as_json_line(now),
                    )
                )
            if progress is not None:
                progress.rows(identical + len(differences))
    finally:
        scoring.close()
    return VerifyReport(
        checked=identical + len(differences),
        identical=identical,
        differences=tuple(differences),
        environment=environment,
    )
