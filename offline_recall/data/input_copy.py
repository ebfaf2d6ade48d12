"""The bytes of an input file as its one pass read them, kept for its rows to be read from: a
run scores the very bytes it hashed, and opens the file itself once.

Up to `IN_MEMORY` bytes are kept in memory; a larger file is kept in an anonymous temporary
file (in the folder `tempfile` uses: `TMPDIR`), which no other process sees and which is gone
once the copy is closed, collected, or the process ends.
"""

from __future__ import annotations

import io
import os
import tempfile
import weakref
from typing import IO, Any

from ..errors import DatasetError

IN_MEMORY = 32 * 1024 * 1024
"""The largest copy kept in memory, in bytes; a larger one is kept in a temporary file."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _FileReader(io.RawIOBase):
    """The temporary file read from its own position (`os.pread`): readers of the copy never
    move one another."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        start = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, start + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = os.pread(self._fd, len(view), self._position)
        view[: len(data)] = data
        self._position += len(data)
        return len(data)


class InputCopy:
    """The bytes written to it, in order, to be read back any number of times (`open`).

    A copy stays in the process that read the file: sent to another one (pickled, as a
    dataset is to Ray workers, which read the file by its path), it arrives closed."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._held = 0
        self._data: bytes | None = None
        self._fd: int | None = None
        self._close: weakref.finalize[Any, Any] | None = None
        self._reading = self._closed = False
        self.size = 0
        """Bytes written."""

    def write(self, data: bytes) -> None:
        """Add `data` to the end (not once the copy has been read)."""
        assert not self._reading, "an input copy is written whole before it is read"
        self.size += len(data)
        if self._fd is None and self._held + len(data) <= IN_MEMORY:
            self._parts.append(bytes(data))
            self._held += len(data)
            return
        try:
            if self._fd is None:
                self._fd = self._temporary()
                for part in self._parts:
                    _write_all(self._fd, part)
                self._parts, self._held = [], 0
            _write_all(self._fd, data)
        except OSError as e:
            raise DatasetError(
                f"no room to keep a copy of the input in {tempfile.gettempdir()} "
                f"({e.strerror}): free space there, or set TMPDIR to a folder with room"
            ) from e

    def _temporary(self) -> int:
        fd, name = tempfile.mkstemp(prefix="offline-recall-input-")
        os.unlink(name)  # anonymous: gone with the last descriptor, however the process ends
        self._close = weakref.finalize(self, os.close, fd)
        return fd

    def finish(self) -> None:
        """Written whole: from now on the copy is read."""
        self._reading = True
        if self._fd is None and self._data is None:
            self._data = b"".join(self._parts)
            self._parts = []

    def open(self) -> IO[bytes]:
        """A new reader of the bytes written, from the first."""
        assert not self._closed, "an input copy is read before it is closed"
        self.finish()
        if self._fd is not None:
            return io.BufferedReader(_FileReader(self._fd, self.size))
        return io.BytesIO(self._data or b"")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_closed_copy, ())

    def close(self) -> None:
        """Let the bytes go: the temporary file is closed (and so removed)."""
        if self._close is not None:
            self._close()
        self._closed = True
        self._fd, self._parts, self._data = None, [], None


def _closed_copy() -> InputCopy:
    copy = InputCopy()
    copy.close()
    return copy
