"""A run kept as a folder of Parquet shards: what the Ray runner commits as workers finish.

Each shard of the input (a contiguous run of records, see `data.shards`) is scored by one
worker and committed as one file, `shard-NNNNNN.parquet`: written under a temporary name,
flushed to disk, then renamed, so a file that exists is a whole shard. A run killed anywhere
(a worker, the driver) keeps every committed shard, and running it again scores only the
others. The folder is bound to the run's identity (spec, input hash, field mapping) and to its
shard size, and holds the run's manifest. Its `run.json` is also its marker: a folder that
holds anything and no binding of a run is someone else's, and is never written into or
cleaned (see `data.destinations.check_own_folder`), nor is a symbolic link.

A shard file has two columns: `line` and `record`, the record's JSON exactly as the SQLite run
store keeps it, so the single result file written from the shards is byte for byte the one the
local runner writes.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..data.destinations import check_own_folder, json_file
from ..errors import ConfigurationError
from .results import ItemRecord, OutputFormat
from .run_manifest import RunIdentity, RunManifest
from .store import read_manifest, write_manifest, write_records
from .summary import Summary, Tally

SCHEMA_VERSION = "1"
"""Bumped when what a shard folder holds changes shape; a folder of another version is refused."""
_SHARD = re.compile(r"shard-(\d{6,})\.parquet")
_RUN = "run.json"
_MANIFEST = "manifest.json"
_TEMP = re.compile(
    r"\.(run\.json\..+\.tmp|shard-\d{6,}\.parquet\..+\.tmp|manifest\.json\.partial-.+)"
)
"""A file being written under a temporary name (`.run.json.<hex>.tmp`)."""


def default_shards_path(out: Path) -> Path:
    """Where a Ray run writing `out` keeps its shards: `<out>.shards/`."""
    return out.with_name(out.name + ".shards")


class _Binding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str
    identity: RunIdentity
    shard_rows: int
    input_changed: str | None = None
    """How the input changed while the shards were scored; a folder saying so is not resumed."""


def _fsynced(path: Path) -> None:
    with path.open("rb") as f:
        os.fsync(f.fileno())


def _holds_shards(folder: Path) -> bool:
    """Whether `folder` is a shard folder: its `run.json` binds a run, as `claim` writes it,
    or all it holds is what a claim killed before writing it left (its temporary files)."""
    binding = json_file(folder / _RUN)
    if isinstance(binding, dict) and {"schema_version", "identity"} <= binding.keys():
        return True
    return all(_TEMP.fullmatch(p.name) for p in folder.iterdir())


class ShardFolder:
    """One run's results as Parquet shards in a folder every worker and the driver can reach."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def check(self) -> None:
        """Refuse, in one line, a folder this run may not write into or clean: a symbolic
        link, a file, or a folder holding anything but a run's shards."""
        check_own_folder("the shard folder", self.path, _holds_shards, "a Ray run's shards")

    def shard_path(self, index: int) -> Path:
        return self.path / f"shard-{index:06d}.parquet"

    def claim(self, identity: RunIdentity, shard_rows: int) -> int:
        """Bind the folder to `identity`; a folder holding another run is refused, naming the
        fields that differ. Returns the shard size: the one the folder was first cut with."""
        self.check()
        self.path.mkdir(parents=True, exist_ok=True)
        for stale in self.path.glob(".shard-*.tmp"):  # left by a worker killed mid-write
            stale.unlink(missing_ok=True)
        where = self.path / _RUN
        if not where.exists():
            self._bind(
                _Binding(schema_version=SCHEMA_VERSION, identity=identity, shard_rows=shard_rows)
            )
            return shard_rows
        previous = self._binding()
        if previous.input_changed is not None:
            raise ConfigurationError(
                f"the shards in {self.path} hold rows of a run whose input changed: "
                f"{previous.input_changed}; give --restart to score it again"
            )
        if previous.identity != identity:
            shown = "; ".join(previous.identity.differences(identity))
            raise ConfigurationError(
                f"the shards in {self.path} hold another run (different {shown}); give another "
                "--shards, or --restart to discard them"
            )
        return previous.shard_rows

    def _binding(self) -> _Binding:
        raw = json.loads((self.path / _RUN).read_text(encoding="utf-8"))
        if raw.get("schema_version") != SCHEMA_VERSION:
            raise ConfigurationError(
                f"the shards in {self.path} were written by another version of offline-recall; "
                "give another --shards, or --restart to discard them"
            )
        return _Binding.model_validate(raw)

    def _bind(self, binding: _Binding) -> None:
        temp = self.path / f".{_RUN}.{uuid.uuid4().hex}.tmp"
        temp.write_text(binding.model_dump_json(indent=2) + "\n", encoding="utf-8")
        temp.replace(self.path / _RUN)

    def spoil(self, change: str) -> None:
        """Mark the shards as read from an input that changed while they were scored
        (`change` says how): no later run resumes them."""
        self._bind(self._binding().model_copy(update={"input_changed": change}))

    def set_manifest(self, manifest: RunManifest) -> None:
        write_manifest(self.path / _MANIFEST, manifest)

    def manifest(self) -> RunManifest | None:
        where = self.path / _MANIFEST
        if not where.is_file():
            return None
        return read_manifest(where)

    def committed(self) -> set[int]:
        """The indexes of the shards whose files are complete."""
        if not self.path.is_dir():
            return set()
        found = (_SHARD.fullmatch(p.name) for p in self.path.iterdir())
        return {int(m.group(1)) for m in found if m is not None}

    def retried(self) -> set[int]:
        """The committed shards holding a row some scorer failed on for a transient engine
        error (see `ScoreResult.transient`): a resumed run scores them again."""
        return {
            index
            for index in self.committed()
            if any(r.transient for record in self.read(index) for r in record.results.values())
        }

    def write(self, index: int, records: Iterable[ItemRecord]) -> None:
        """Commit shard `index`: all its records appear at once, or none do."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        listed = list(records)
        table = pa.table(
            {
                "line": pa.array([r.line for r in listed], pa.int64()),
                "record": pa.array([r.model_dump_json() for r in listed], pa.string()),
            }
        )
        final = self.shard_path(index)
        temp = self.path / f".{final.name}.{uuid.uuid4().hex}.tmp"
        try:
            pq.write_table(table, temp)
            _fsynced(temp)
            temp.replace(final)
        finally:
            temp.unlink(missing_ok=True)

    def read(self, index: int) -> Iterator[ItemRecord]:
        """The records of one committed shard, in line order."""
        import pyarrow.parquet as pq

        column = pq.read_table(self.shard_path(index), columns=["record"]).column("record")
        for text in column.to_pylist():
            yield ItemRecord.model_validate_json(text)

    def records(self, shards: int) -> Iterator[ItemRecord]:
        """The records of shards 0 to `shards - 1`, in line order (each must be committed)."""
        for index in range(shards):
            yield from self.read(index)

    def export(
        self, shards: int, out: Path | None, fmt: OutputFormat, scorer_ids: list[str]
    ) -> dict[str, Summary]:
        """Each scorer's summary over every record; with `out`, the records also written there
        in line order, atomically, in one pass over the shards."""
        tallies: dict[str, Tally] = {}

        def counted() -> Iterator[ItemRecord]:
            for record in self.records(shards):
                for sid, result in record.results.items():
                    tallies.setdefault(sid, Tally()).add(result)
                yield record

        if out is None:
            for _ in counted():
                pass
        else:
            write_records(out, fmt, scorer_ids, counted())
        return {sid: t.summary() for sid, t in tallies.items()}

    def clear(self) -> None:
        """Remove what a run left here (its shards, binding, manifest and temporary files), and
        the folder if nothing else is in it. A folder that is not a run's (see `check`) is
        refused, and nothing in it removed."""
        if not self.path.is_dir():
            return
        self.check()
        for p in self.path.iterdir():
            ours = _SHARD.fullmatch(p.name) or p.name in (_RUN, _MANIFEST)
            if ours or _TEMP.fullmatch(p.name):
                p.unlink()
        if not any(self.path.iterdir()):
            self.path.rmdir()
