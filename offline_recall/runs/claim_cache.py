"""Claims extracted in earlier runs, kept in SQLite under the cache folder.

Entries are keyed by the sha256 of (entry version, model fingerprint, prompt version,
ground-truth text), so scoring the same labelled set against another retriever extracts no
claims again, and a changed model or prompt never reuses another's claims. Only successful
extractions are kept. A cache that cannot be opened, read or written (a read-only or missing
folder, a file that is not a cache, a full disk) stops the command in one line saying what to
do, never with a traceback; so does a cache file (or one of SQLite's side files) that is a
symbolic link, which is never written through, dangling or not.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigurationError
from ..paths import CACHE_ENV, cache_root

_SIDE_FILES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside the cache."""
_SCHEMA = "CREATE TABLE IF NOT EXISTS claims (key BLOB PRIMARY KEY, claims TEXT NOT NULL)"


def default_cache_path() -> Path:
    """`claims.sqlite` under the cache folder ($OFFLINE_RECALL_CACHE or the user's cache)."""
    return cache_root() / "claims.sqlite"


class CacheInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    entries: int
    bytes: int


# Raised when the engines extract other claims for the same (model, prompt version, text);
# entries written under an earlier value are never read again.
_ENTRY_VERSION = "3"


def _key(fingerprint: str, prompt_version: str, text: str) -> bytes:
    parts = (_ENTRY_VERSION, fingerprint, prompt_version, text)
    return hashlib.sha256("\0".join(parts).encode()).digest()


class ClaimCache:
    """A persistent map from (fingerprint, prompt version, text) to that text's claims."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        for file in (self.path, *(self.path.with_name(self.path.name + s) for s in _SIDE_FILES)):
            if file.is_symlink():
                raise ConfigurationError(
                    f"the claim cache {file} is a symbolic link, which is never written "
                    f"through; remove it, set {CACHE_ENV} to another folder, or score with "
                    "--no-cache"
                )
        with self._using():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # A Ray worker opens it in one thread and scores in another; SQLite serialises it.
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False
            )
        try:
            with self._using():
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
        except ConfigurationError:
            self._db.close()
            raise

    @contextmanager
    def _using(self) -> Iterator[None]:
        """Use the cache; one that cannot be used (a read-only or missing folder, a file that
        is not a cache, a full disk) is said in one line, with what to do."""
        try:
            yield
        except (OSError, sqlite3.Error) as e:
            reason = str(e)
            if isinstance(e, OSError) and e.strerror:
                reason = e.strerror if e.filename is None else f"{e.strerror}: {e.filename}"
            raise ConfigurationError(
                f"the claim cache {self.path} cannot be used ({reason}); set {CACHE_ENV} to a "
                "writable folder, remove the file, or score with --no-cache"
            ) from None

    def close(self) -> None:
        self._db.close()

    def get(
        self, fingerprint: str, prompt_version: str, texts: Sequence[str]
    ) -> dict[str, list[str]]:
        """The cached claims of those `texts` that have an entry."""
        found: dict[str, list[str]] = {}
        with self._using():
            for text in texts:
                row = self._db.execute(
                    "SELECT claims FROM claims WHERE key = ?",
                    (_key(fingerprint, prompt_version, text),),
                ).fetchone()
                if row is not None:
                    found[text] = list(json.loads(row[0]))
        return found

    def put(self, fingerprint: str, prompt_version: str, claims: dict[str, list[str]]) -> None:
        """Remember each text's claims, in one transaction."""
        rows = [
            (_key(fingerprint, prompt_version, t), json.dumps(c, ensure_ascii=False))
            for t, c in claims.items()
        ]
        with self._using():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO claims (key, claims) VALUES (?, ?)", rows
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def info(self) -> CacheInfo:
        with self._using():
            (entries,) = self._db.execute("SELECT count(*) FROM claims").fetchone()
        size = sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )
        return CacheInfo(path=self.path, entries=int(entries), bytes=size)

    def clear(self) -> int:
        """Remove every entry; the number removed."""
        with self._using():
            (entries,) = self._db.execute("SELECT count(*) FROM claims").fetchone()
            self._db.execute("DELETE FROM claims")
            self._db.execute("VACUUM")
        return int(entries)
