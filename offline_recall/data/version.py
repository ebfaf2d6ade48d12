"""One version of an input file per run: the bytes a run scores are the bytes it hashed when it
opened the file (`scan`), read from the copy that one pass kept; and the run ends saying the
file changed when, once its rows are read, the file at its path is no longer the one opened:
another file, another size, or written to since (its modification time).

A file read in shards by Ray workers is read from its path, not from the copy: it is hashed
again once its rows are scored (`check_unchanged`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..errors import DatasetError
from .hashing import HashingReader


class InputChanged(DatasetError):
    """The input file changed while a run read it: what the run scored is not what it hashed."""

    def __init__(self, path: Path, what: str) -> None:
        self.change = f"{path.name} changed while it was scored ({what})"
        """What changed, in words: kept by the run's store, which no later run resumes."""
        super().__init__(
            f"{self.change}; nothing is reported: once it no longer changes, score it again "
            "with --restart"
        )


@dataclass(frozen=True)
class FileVersion:
    """The bytes of an input file as a run first read them."""

    sha256: str
    size: int


class FileStamp(NamedTuple):
    """Which file a path names, as `stat` says: the file itself, its size and when it was
    last written to."""

    device: int
    inode: int
    size: int
    modified_ns: int

    @classmethod
    def of(cls, found: os.stat_result) -> FileStamp:
        return cls(found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)


def check_same_file(path: Path, version: FileVersion, opened: FileStamp) -> None:
    """Raise `InputChanged` unless the bytes hashed (`version`) are the whole file as it was
    `opened`, and the file at `path` is still that file, that size, not written to since."""
    if version.size != opened.size:
        said = f"{opened.size} bytes as it was opened, {version.size} bytes read"
        raise InputChanged(path, f"its size changed as it was read: {said}")
    try:
        now = FileStamp.of(path.stat())
    except OSError:
        raise InputChanged(path, "it is gone") from None
    if (now.device, now.inode) != (opened.device, opened.inode):
        raise InputChanged(path, "another file now has its name")
    if now.size != version.size:
        raise InputChanged(path, f"it has {now.size} bytes, {version.size} bytes at the start")
    if now.modified_ns != opened.modified_ns:
        raise InputChanged(path, "it was written to since the run opened it")


def _size_now(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def check_unchanged(path: Path, version: FileVersion) -> None:
    """Hash `path` again and raise `InputChanged` unless it is still `version` (for a file
    whose rows were read from its path, not from the copy hashed)."""
    try:
        with path.open("rb") as f:
            raw = HashingReader(f, version.size)
            sha256 = raw.sha256()
    except OSError:
        raise InputChanged(path, "it can no longer be read") from None
    if raw.size < version.size:
        said = f"it ended after {raw.size} of the {version.size} bytes it had"
        raise InputChanged(path, said)
    if sha256 != version.sha256:
        raise InputChanged(path, "its bytes differ from those hashed when the run started")
    now = _size_now(path)
    if now != version.size:
        said = (
            "it is gone"
            if now is None
            else f"it has {now} bytes, {version.size} bytes at the start"
        )
        raise InputChanged(path, said)
