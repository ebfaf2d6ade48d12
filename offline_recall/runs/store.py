"""The run store: each row's result, committed to SQLite as soon as its window is scored.

A run is identified by its spec (everything that decides a result: model, engine and its
options, scorers with their scale, prompts and judge profiles, library and engine versions), its
input file's hash and how its fields are read. Running the same command again reopens the
store and scores only the rows it does not hold yet, so a run killed at any moment loses at
most the window in flight, and no row is scored twice or written twice.

The store uses write-ahead logging with `synchronous=FULL`: every committed window is on disk
before the next one starts, so even a power loss (not only a killed process) keeps what was
committed. One fsync per window costs little next to the model's work on the window. A store
that cannot be written (a full disk) stops the run in one line, keeping what was committed.

A store opened only to read (`verify`) is never locked or written, so a store on a read-only
mount or in a received bundle is read as it is.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from ..data.destinations import replaced_whole, written_whole
from ..errors import ConfigurationError, DatasetError
from .lock import StoreLock, lock_path
from .results import ItemRecord, OutputFormat, open_writer
from .run_manifest import RunIdentity, RunManifest
from .summary import Summary, Tally

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (line INTEGER PRIMARY KEY, record TEXT NOT NULL);
"""
_TRANSIENT = (
    "EXISTS (SELECT 1 FROM json_each(results.record, '$.results') "
    "WHERE json_extract(json_each.value, '$.transient') = 1)"
)
"""A stored row some scorer failed on for a transient engine error."""
_DONE = f"SELECT line FROM results WHERE NOT {_TRANSIENT}"
SCHEMA_VERSION = "2"
"""Bumped when what the store holds changes shape; a store of another version is refused."""


def default_store_path(out: Path) -> Path:
    """Where a run writing `out` keeps its store: `<out>.run.sqlite`."""
    return out.with_name(out.name + ".run.sqlite")


def manifest_path(out: Path) -> Path:
    """Where a run writing `out` writes its manifest: `<out>.manifest.json`."""
    return out.with_name(out.name + ".manifest.json")


def store_files(store: Path) -> dict[str, Path]:
    """Every file a run store is kept in, by what it is: the database, its write-ahead log and
    the log's index, the rollback journal SQLite may keep before the log is on, and its lock."""
    return {
        "run store": store,
        "run store's -wal file": Path(f"{store}-wal"),
        "run store's -shm file": Path(f"{store}-shm"),
        "run store's -journal file": Path(f"{store}-journal"),
        "run store's lock": lock_path(store),
    }


def run_files(name: str, results: Path) -> dict[str, Path]:
    """The files of the run whose results are `results`, each named for messages as `name`'s:
    the results, the manifest beside them and the files of the store beside them."""
    files = {name: results, f"{name}'s manifest": manifest_path(results)}
    store = store_files(default_store_path(results))
    return files | {f"{name}'s {what}": path for what, path in store.items()}


def read_manifest(path: Path) -> RunManifest:
    """The run manifest in `path`; one that cannot be read is refused in one line."""
    try:
        return RunManifest.model_validate_json(path.read_bytes())
    except OSError as e:
        raise DatasetError(f"cannot read the run manifest {path}: {e.strerror or e}") from None
    except ValidationError as e:
        raise DatasetError(
            f"{path} is not a run manifest offline-recall can read ({_first_error(e)}); "
            "restore the one `score` wrote, or move it away"
        ) from None


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _reader(path: Path) -> sqlite3.Connection:
    """A connection to the database at `path` that never writes it: read-only, else (a
    read-only mount, where SQLite cannot make the log's index) read as immutable."""
    uri = path.resolve().as_uri()
    error: sqlite3.Error | None = None
    for mode in ("mode=ro", "immutable=1"):
        db = sqlite3.connect(f"{uri}?{mode}", uri=True, isolation_level=None)
        try:
            db.execute("SELECT name FROM sqlite_master").fetchall()
            return db
        except sqlite3.Error as e:
            db.close()
            error = e
    assert error is not None
    raise error


def _refuse_borrowed(store: Path) -> None:
    """Refuse a store whose files are not its own: a symbolic link (a run never writes through
    one) or a file with other names (a hard link: writing it would write another file)."""
    for what, path in store_files(store).items():
        try:
            found = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            raise ConfigurationError(f"cannot use the {what} {path}: {e.strerror}") from None
        if stat.S_ISLNK(found.st_mode):
            raise ConfigurationError(
                f"the {what} {path} is a symbolic link; a run never writes through one: "
                "give --out (or --store) a path of its own"
            )
        if found.st_nlink > 1:
            raise ConfigurationError(
                f"the {what} {path} is a file with other names (hard links); a run writes "
                "only files of its own: remove it or give --out (or --store) a path of its own"
            )


def _refuse_foreign(path: Path) -> None:
    """Refuse a file at `path` that is not a run store: it is never opened for writing, nor
    removed by a restart."""
    try:
        if path.stat().st_size == 0:
            return
        with path.open("rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        return
    except OSError as e:
        raise ConfigurationError(f"cannot read the run store {path}: {e.strerror}") from e
    ours = False
    if head == b"SQLite format 3\x00":
        try:
            db = _reader(path)
            try:
                tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
                ours = {"meta", "results"} <= tables
            finally:
                db.close()
        except sqlite3.DatabaseError:
            ours = False
    if not ours:
        raise ConfigurationError(
            f"{path} is not a run store of offline-recall; give --store a new path or a store "
            "a run wrote"
        )


def remove_store(path: Path) -> None:
    """Delete a run store's files (the database, its write-ahead log and any journal)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


class RunStore:
    """One run's results in SQLite, keyed by dataset line; `:memory:` keeps nothing.

    A store on disk is locked while it is open: a second run on it is refused at once, naming
    the process that holds it (see `StoreLock`). `restart` discards what it held, under the
    lock. A store opened `read_only` is neither locked nor written: a store on a read-only
    mount, or one another run holds, is read as it is."""

    def __init__(self, path: Path | None, restart: bool = False, read_only: bool = False) -> None:
        self.path = path
        self._lock = None if path is None or read_only else StoreLock(path)
        if read_only and path is not None:
            _refuse_foreign(path)
            self.created = False
            try:
                self._db = _reader(path)
            except sqlite3.Error as e:
                raise ConfigurationError(f"cannot read the run store {path}: {e}") from None
            return
        if self._lock is not None and path is not None:
            _refuse_borrowed(path)
            self._lock.acquire()
            try:
                _refuse_foreign(path)
            except BaseException:
                self._lock.release()
                raise
            if restart:
                remove_store(path)
        self.created = path is None or not path.exists()
        """Whether this run created the store (it held nothing before)."""
        try:
            self._db = sqlite3.connect(
                ":memory:" if path is None else str(path), isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except BaseException as e:
            if self._lock is not None:
                self._lock.release()
            if isinstance(e, sqlite3.Error):
                raise ConfigurationError(f"cannot open the run store {path}: {e}") from e
            raise

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write to the store; a failed one (a full disk, a read-only store) is said in one
        line: the rows committed before it are kept."""
        try:
            yield
        except sqlite3.Error as e:
            where = ":memory:" if self.path is None else str(self.path)
            raise ConfigurationError(
                f"cannot write the run store {where} ({e}); free space or make it writable, "
                "then run the same command again: it keeps the rows committed"
            ) from None

    def close(self) -> None:
        """Close the database and release its lock; closing twice is harmless."""
        self._db.close()
        if self._lock is not None:
            self._lock.release()

    def discard(self) -> None:
        """Close the store and delete its files, before another run can take its lock."""
        self._db.close()
        if self.path is not None:
            remove_store(self.path)
        self.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        with self._writing():
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def claim(self, identity: RunIdentity) -> None:
        """Bind the store to `identity`; a store holding another run is refused, naming the
        fields that differ, and so is one whose rows were read from an input that changed."""
        where = "" if self.path is None else f"{self.path} "
        if (change := self._meta("input_changed")) is not None:
            raise ConfigurationError(
                f"the run store {where}holds rows of a run whose input changed: {change}; "
                "give --restart to score it again"
            )
        version = self._meta("schema")
        stored = self._meta("identity")
        if stored is not None and version != SCHEMA_VERSION:
            raise ConfigurationError(
                f"the run store {where}was written by another version of offline-recall; "
                "give another --out, or --restart to discard it"
            )
        if stored is None:
            self._set_meta("schema", SCHEMA_VERSION)
            self._set_meta("identity", identity.model_dump_json())
            return
        previous = RunIdentity.model_validate_json(stored)
        if previous != identity:
            shown = "; ".join(previous.differences(identity))
            raise ConfigurationError(
                f"the run store {where}holds another run (different {shown}); give another "
                "--out, or --restart to discard it"
            )

    def spoil(self, change: str) -> None:
        """Mark the rows held as read from an input that changed while they were scored
        (`change` says how): no later run resumes them."""
        self._set_meta("input_changed", change)

    def identity(self) -> RunIdentity | None:
        stored = self._meta("identity")
        return None if stored is None else RunIdentity.model_validate_json(stored)

    def set_manifest(self, manifest: RunManifest) -> None:
        self._set_meta("manifest", manifest.model_dump_json())

    def manifest(self) -> RunManifest | None:
        stored = self._meta("manifest")
        if stored is None:
            return None
        try:
            return RunManifest.model_validate_json(stored)
        except ValidationError as e:
            raise DatasetError(
                f"the manifest in the run store {self.path} cannot be read ({_first_error(e)}); "
                "it was not written by this offline-recall"
            ) from None

    def done(self) -> set[int]:
        """The lines whose results are stored for good: a row some scorer failed on for a
        transient engine error (see `ScoreResult.transient`) is scored again."""
        return {int(line) for (line,) in self._db.execute(_DONE)}

    def retried(self) -> int:
        """How many stored rows failed for a transient engine error (and are scored again)."""
        (count,) = self._db.execute(f"SELECT COUNT(*) FROM results WHERE {_TRANSIENT}").fetchone()
        return int(count)

    def add(self, records: Iterable[ItemRecord]) -> None:
        """Commit `records` in one transaction: all of them are stored, or none. A record
        replaces the one stored for its line (a row retried after a transient failure)."""
        rows = [(r.line, r.model_dump_json()) for r in records]
        with self._writing():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO results (line, record) VALUES (?, ?)", rows
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a full disk may have ended it already
                    self._db.execute("ROLLBACK")
                raise

    def replace(self, record: ItemRecord) -> None:
        """Overwrite one stored record."""
        with self._writing():
            self._db.execute(
                "UPDATE results SET record = ? WHERE line = ?",
                (record.model_dump_json(), record.line),
            )

    def records(self) -> Iterator[ItemRecord]:
        """Every stored record in line order."""
        for (text,) in self._db.execute("SELECT record FROM results ORDER BY line"):
            yield ItemRecord.model_validate_json(text)

    def summaries(self) -> dict[str, Summary]:
        """Each scorer's summary over every stored record."""
        tallies: dict[str, Tally] = {}
        for record in self.records():
            for sid, result in record.results.items():
                tallies.setdefault(sid, Tally()).add(result)
        return {sid: t.summary() for sid, t in tallies.items()}

    def export(self, out: Path, fmt: OutputFormat, scorer_ids: list[str]) -> None:
        """Write every record to `out` in line order, atomically: a temp file renamed in place."""
        write_records(out, fmt, scorer_ids, self.records())


def write_records(
    out: Path, fmt: OutputFormat, scorer_ids: list[str], records: Iterable[ItemRecord]
) -> None:
    """Write `records` to `out` as they come, atomically (see `replaced_whole`)."""
    with replaced_whole(out) as temp:
        writer = open_writer(temp, fmt, scorer_ids)
        try:
            for record in records:
                writer.write(record)
        finally:
            writer.close()


def write_manifest(path: Path, manifest: RunManifest) -> None:
    """The manifest as indented JSON, written atomically (see `written_whole`)."""
    with written_whole(path) as f:
        f.write(json.dumps(manifest.model_dump(mode="json"), indent=2) + "\n")
