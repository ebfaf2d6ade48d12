"""One version of an input file per run: the bytes a run scores are the bytes it hashed when it
opened the file (`scan`), or the run ends saying the file changed.

The rows of a text file are read through the same hash, to the size hashed and no further; when
they end, the digest of what was read must be the one taken at the start, and the file must
still be that size. A Parquet file (read by pyarrow in pieces) and a file read in shards on Ray
are hashed again once their rows are read; so is a file another one replaced under its name
while its rows were read.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import DatasetError
from .readers import InputFormat, Record, parquet_records, text_records
from .scan import HashingReader


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


def _size_now(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def check_read(path: Path, version: FileVersion, sha256: str, size: int) -> None:
    """Raise `InputChanged` unless the bytes read (`sha256` of `size` bytes, at most the size
    hashed) are those of `version` and the file at `path` is still that size."""
    if size < version.size:
        raise InputChanged(path, f"it ended after {size} of the {version.size} bytes it had")
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


def check_unchanged(path: Path, version: FileVersion) -> None:
    """Hash `path` again and raise `InputChanged` unless it is still `version`."""
    try:
        with path.open("rb") as f:
            raw = HashingReader(f, version.size)
            sha256 = raw.sha256()
    except OSError:
        raise InputChanged(path, "it can no longer be read") from None
    check_read(path, version, sha256, raw.size)


def versioned_records(
    fmt: InputFormat, path: Path, version: FileVersion | None, delimiter: str | None = None
) -> Iterator[Record]:
    """The records of `path` as `fmt` (CSV split at `delimiter`); with `version`, read from
    the bytes it hashed (see the module's doc), raising `InputChanged` once they end if the
    file changed."""
    if fmt == InputFormat.PARQUET:
        yield from parquet_records(path)
        if version is not None:
            check_unchanged(path, version)
        return
    with path.open("rb") as f:
        raw = HashingReader(f, None if version is None else version.size)
        yield from text_records(fmt, io.BufferedReader(raw), path.name, delimiter).records
        if version is None:
            return
        check_read(path, version, raw.sha256(), raw.size)
        if not os.path.samestat(os.fstat(f.fileno()), path.stat()):
            check_unchanged(path, version)  # another file now has its name
