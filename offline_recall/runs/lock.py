"""One run at a time per run store: an exclusive lock held while a run writes to it.

Two `score` commands on the same `--out` would otherwise both score the rows missing from the
store and collide on the first row both commit. The second is refused at once, naming the
process that holds the store; the first goes on untouched.

The lock is `flock` on a file beside the store (`<store>.lock`), never on the SQLite file itself
(closing another handle on a database file drops SQLite's own locks). The kernel releases it
when its holder exits, however it exits, so a killed run never leaves a stale lock. The file
holds the holder's process id and host, for the message, and is removed on release from the
folder it was made in, even if that folder was moved or a link put in its place. A symbolic
link, a file with another name (a hard link) or anything but a regular file at the lock's path
is refused, never opened through: the lock never truncates another file. Where there is no
`flock` (Windows) no lock is taken.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

from ..errors import ConfigurationError


def lock_path(store: Path) -> Path:
    """The lock file of a run store: `<store>.lock`."""
    return store.with_name(store.name + ".lock")


class StoreLock:
    """An exclusive lock on a run store, taken at once or refused with one line."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.path = lock_path(store)
        self._fd: int | None = None
        self._folder: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise naming the process that holds it. Where there is no `flock`
        (Windows), no lock is taken."""
        try:
            import fcntl
        except ImportError:
            return
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read(fd)
                os.close(fd)
                raise ConfigurationError(
                    f"the run store {self.store} is in use by another run ({holder}); wait for "
                    "it to finish, or give another --out"
                ) from None
            # A holder that released removed the file it locked: lock the one at the path.
            if _same_file(fd, self.path):
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()}\n".encode())
        self._fd = fd
        try:
            self._folder = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            self._folder = None  # then the file is removed by its path, if still the one locked

    def _open(self) -> int:
        """The lock file, created if absent; never through a symbolic link, never anything but
        a regular file."""
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, flags, 0o644)
        except OSError as e:
            if os.path.islink(self.path):
                raise ConfigurationError(
                    f"the run store's lock {self.path} is a symbolic link; remove the link (a "
                    "lock is never written through one) or give another --out"
                ) from None
            raise ConfigurationError(
                f"cannot lock the run store {self.store}: {self.path}: {e.strerror or e}; "
                "give --out (or --store) a path in a writable folder"
            ) from None
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            os.close(fd)
            raise ConfigurationError(
                f"the run store's lock {self.path} is not a regular file; remove it or give "
                "another --out"
            )
        if opened.st_nlink > 1:
            os.close(fd)
            raise ConfigurationError(
                f"the run store's lock {self.path} is a file with other names (hard links); "
                "a lock is never written into another file: remove it or give another --out"
            )
        return fd

    def release(self) -> None:
        """Remove the lock file and drop the lock; releasing twice is harmless. The file is
        removed from the folder it was made in, and only if it is still the file locked: a
        link now in that folder's place is never followed."""
        if self._fd is None:
            return
        folder, name = self._folder, self.path.name
        try:
            if folder is None:
                if _same_file(self._fd, self.path):
                    self.path.unlink()
            elif _same_file(self._fd, os.stat(name, dir_fd=folder, follow_symlinks=False)):
                os.unlink(name, dir_fd=folder)
        except FileNotFoundError:
            pass
        if folder is not None:
            os.close(folder)
            self._folder = None
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def _read(fd: int) -> str:
    text = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip()
    return text or "a process that has not yet written its id"


def _same_file(fd: int, named: Path | os.stat_result) -> bool:
    """Whether `named` (a path, or what `stat` said of one) is the file open as `fd`."""
    if isinstance(named, Path):
        try:
            named = named.stat()
        except FileNotFoundError:
            return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
