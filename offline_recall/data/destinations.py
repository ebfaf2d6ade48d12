"""Where a command may write: regular files or new paths, never an input, never each other.

Every command that writes a file checks all its destinations here before any work starts, so
a mistyped path fails in one line instead of replacing a device, a FIFO or the data it reads.
The inputs include the files a command reads beside the ones it is given (a run's manifest and
store, a model's manifest and the files of its folder), and the destinations include the files
it writes beside the ones it is given (a manifest, a store's log files and its lock). A
symbolic link is never a destination: nothing is written through one.

Folders follow one rule too (`check_own_folder`): a folder the project writes into or cleans
(the Mastra module, a Ray run's shard folder, the probed-servers registry, the parts of a
weights file) is never a symbolic link, and is either new, empty, or marked as the project's
own; a folder of someone else's is never written into or cleaned.
"""

from __future__ import annotations

import glob
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ..errors import ConfigurationError


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file: the same inode when both exist, else the same
    resolved path (a link to the other, `./x` for `x`)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def _refuse_unwritable(option: str, path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as e:
        raise ConfigurationError(f"{option} {path}: cannot be written ({e.strerror})") from e
    if mode is not None and stat.S_ISLNK(mode):
        raise ConfigurationError(
            f"{option} {path} is a symbolic link, which is never written through; remove it "
            "or give another path"
        )
    if mode is not None and not stat.S_ISREG(mode):
        raise ConfigurationError(
            f"{option} {path} is {_kind(mode)}; give the path of a regular file to write"
        )
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ConfigurationError(f"{option} {path}: {folder} is a file, not a folder")
    if mode is None and not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigurationError(f"{option} {path}: the folder {folder} is not writable")
    if mode is not None and not os.access(path, os.W_OK):
        raise ConfigurationError(f"{option} {path} is read-only")


def check_destinations(
    outputs: Sequence[tuple[str, Path]], inputs: Mapping[str, Path] | None = None
) -> None:
    """Refuse, in one line, any output that is not a regular file or a new path (a symbolic
    link among them), that is one of the `inputs`, or that is another output. `outputs` pairs
    each path with what names it (`--out`, `--store`, `the manifest beside --out`); `inputs`
    names each file read (`RESULTS`, `RESULTS's manifest`, `FOLDER's config.json`)."""
    given = dict(inputs or {})
    for i, (option, path) in enumerate(outputs):
        _refuse_unwritable(option, path)
        for name, source in given.items():
            if same_file(path, source):
                raise ConfigurationError(
                    f"{option} {path} is the input {name}; write the results somewhere else"
                )
        for other, earlier in outputs[:i]:
            if same_file(path, earlier):
                raise ConfigurationError(f"{option} {path} is also {other}; give each its own file")


def refuse_link(what: str, path: Path) -> None:
    """Refuse, in one line, a `path` that is a symbolic link: nothing is written or removed
    through one."""
    if path.is_symlink():
        raise ConfigurationError(
            f"{what} {path} is a symbolic link, which is never written through; remove it "
            "or give another path"
        )


def check_own_folder(what: str, path: Path, ours: Callable[[Path], bool], holds: str) -> None:
    """Refuse, in one line, a folder the project would write into or clean unless it is a new
    path, an empty folder, or a folder `ours` recognises as the project's own (by a marker it
    wrote there); never a symbolic link, never something that is not a folder. `holds` says
    what the folder is for (`a Ray run's shards`)."""
    refuse_link(what, path)
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as e:
        raise ConfigurationError(f"{what} {path}: cannot be used ({e.strerror})") from e
    if not stat.S_ISDIR(mode):
        raise ConfigurationError(f"{what} {path} is {_kind(mode)}; give a folder for {holds}")
    try:
        empty = next(os.scandir(path), None) is None
    except OSError as e:
        raise ConfigurationError(f"{what} {path}: cannot be read ({e.strerror})") from e
    if not empty and not ours(path):
        raise ConfigurationError(
            f"{what} {path} holds files that are not {holds}; offline-recall writes only into "
            "a new or empty folder or one of its own: give another path"
        )


def json_file(path: Path) -> object:
    """The JSON a regular file (not a link) holds, or None when it is missing, a link, not a
    regular file, or not JSON: what a folder's marker is read with."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def folder_files(name: str, folder: Path) -> dict[str, Path]:
    """Every file directly in `folder`, each named as an input (`FOLDER's config.json`)."""
    try:
        found = sorted(folder.iterdir())
    except OSError:
        return {}
    return {f"{name}'s {p.name}": p for p in found if p.is_file()}


@contextmanager
def replaced_whole(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` to write, which replaces `path` (synced to disk, with the
    mode a file the user creates gets) only once the block ends without an error: a failed or
    killed write leaves `path` as it was, and a hidden `.NAME.partial-*` file that the next
    write to `path` removes."""
    prefix = f".{path.name}.partial-"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob(f"{glob.escape(prefix)}*"):
            stale.unlink(missing_ok=True)
        handle, name = tempfile.mkstemp(prefix=prefix, dir=path.parent)
        os.close(handle)
    except OSError as e:
        raise write_error(path, e) from e
    temp = Path(name)
    try:
        yield temp
        with temp.open("rb") as f:
            os.fsync(f.fileno())
        temp.chmod(0o666 & ~_umask())  # a private temporary file becomes an ordinary one
        temp.replace(path)
    except OSError as e:
        raise write_error(path, e) from e
    finally:
        temp.unlink(missing_ok=True)


@contextmanager
def written_whole(path: Path) -> Iterator[TextIO]:
    """A text file written in place of `path` only once the block ends without an error (see
    `replaced_whole`)."""
    with replaced_whole(path) as temp, temp.open("w", encoding="utf-8") as f:
        yield f


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_error(path: Path, error: OSError) -> ConfigurationError:
    """A failed write of `path`, as one line saying why."""
    return ConfigurationError(f"cannot write {path}: {error.strerror or error}")
