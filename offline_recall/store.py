"""The run store: each row's result, committed to SQLite as soon as its window is scored.

A run is identified by its input file's hash, the model fingerprint, the prompt version, the
scale, the field mapping and the backend. Running the same command again reopens the store and
scores only the rows it does not hold yet, so a run killed at any moment loses at most the window
in flight, and no row is scored twice or written twice.

The store uses write-ahead logging with `synchronous=FULL`: every committed window is on disk
before the next one starts, so even a power loss (not only a killed process) keeps what was
committed. One fsync per window costs little next to the model's work on the window.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .errors import ConfigurationError
from .evals import Summary, Tally
from .results import OutputFormat, ResultRecord, open_writer
from .run_manifest import RunManifest

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (line INTEGER PRIMARY KEY, record TEXT NOT NULL);
"""


class RunIdentity(BaseModel):
    """What makes two invocations the same run: the same rows scored the same way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_sha256: str
    model_fingerprint: str
    prompt_version: str
    scale: float
    mapping: dict[str, str]
    context_separator: str | None
    backend: str

    def differences(self, other: RunIdentity) -> list[str]:
        """The fields in which `other` differs from this identity."""
        mine, theirs = self.model_dump(), other.model_dump()
        return [k for k in mine if mine[k] != theirs[k]]


def default_store_path(out: Path) -> Path:
    """Where a run writing `out` keeps its store: `<out>.run.sqlite`."""
    return out.with_name(out.name + ".run.sqlite")


def manifest_path(out: Path) -> Path:
    """Where a run writing `out` writes its manifest: `<out>.manifest.json`."""
    return out.with_name(out.name + ".manifest.json")


class RunStore:
    """One run's results in SQLite, keyed by dataset line; `:memory:` keeps nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._db = sqlite3.connect(":memory:" if path is None else str(path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def claim(self, identity: RunIdentity) -> None:
        """Bind the store to `identity`; a store holding another run is refused."""
        stored = self._meta("identity")
        if stored is None:
            self._set_meta("identity", identity.model_dump_json())
            return
        previous = RunIdentity.model_validate_json(stored)
        if previous != identity:
            where = "" if self.path is None else f"{self.path} "
            raise ConfigurationError(
                f"the run store {where}holds another run (different "
                f"{', '.join(previous.differences(identity))}); give another --out, "
                "or --restart to discard it"
            )

    def identity(self) -> RunIdentity | None:
        stored = self._meta("identity")
        return None if stored is None else RunIdentity.model_validate_json(stored)

    def set_manifest(self, manifest: RunManifest) -> None:
        self._set_meta("manifest", manifest.model_dump_json())

    def manifest(self) -> RunManifest | None:
        stored = self._meta("manifest")
        return None if stored is None else RunManifest.model_validate_json(stored)

    def done(self) -> set[int]:
        """The lines whose results are stored."""
        return {int(line) for (line,) in self._db.execute("SELECT line FROM results")}

    def add(self, records: Iterable[ResultRecord]) -> None:
        """Commit `records` in one transaction: all of them are stored, or none."""
        rows = [(r.line, r.model_dump_json()) for r in records]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO results (line, record) VALUES (?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def replace(self, record: ResultRecord) -> None:
        """Overwrite one stored record."""
        self._db.execute(
            "UPDATE results SET record = ? WHERE line = ?", (record.model_dump_json(), record.line)
        )

    def records(self) -> Iterator[ResultRecord]:
        """Every stored record in line order."""
        for (text,) in self._db.execute("SELECT record FROM results ORDER BY line"):
            yield ResultRecord.model_validate_json(text)

    def summary(self) -> Summary:
        tally = Tally()
        for record in self.records():
            tally.add(record.result())
        return tally.summary()

    def export(self, out: Path, fmt: OutputFormat) -> None:
        """Write every record to `out` in line order, atomically: a temp file renamed in place."""
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
        os.close(handle)
        temp = Path(name)
        try:
            writer = open_writer(temp, fmt)
            try:
                for record in self.records():
                    writer.write(record)
            finally:
                writer.close()
            with temp.open("rb") as f:
                os.fsync(f.fileno())
            temp.replace(out)
        finally:
            temp.unlink(missing_ok=True)


def write_manifest(path: Path, manifest: RunManifest) -> None:
    """The manifest as indented JSON, written atomically."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(json.dumps(manifest.model_dump(mode="json"), indent=2) + "\n", "utf-8")
    temp.replace(path)
