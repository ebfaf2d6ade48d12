"""A binary file read through a sha256: the one pass over an input (`scan`), and the check that
a file read apart by Ray workers still holds the bytes hashed (`version.check_unchanged`)."""

from __future__ import annotations

import hashlib
import io
from typing import IO, Any

from .input_copy import InputCopy

_BLOCK = 1 << 20


class HashingReader(io.RawIOBase):
    """A binary file read through, each byte added to a sha256 (and to `copy`) as it passes;
    with `limit`, no byte past it is read (the file ends there)."""

    def __init__(
        self, raw: IO[bytes], limit: int | None = None, copy: InputCopy | None = None
    ) -> None:
        self._raw = raw
        self._digest = hashlib.sha256()
        self._left = limit
        self._copy = copy
        self.size = 0
        """Bytes read so far."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        wanted = len(view) if self._left is None else min(len(view), self._left)
        data = self._raw.read(wanted)
        view[: len(data)] = data
        self._digest.update(data)
        if self._copy is not None:
            self._copy.write(data)
        self.size += len(data)
        if self._left is not None:
            self._left -= len(data)
        return len(data)

    def sha256(self) -> str:
        """The digest of the whole file (to `limit`): what has not been read yet is read
        first."""
        while self.read(_BLOCK):
            pass
        return self._digest.hexdigest()
