"""Where a command may write: regular files or new paths, never an input, never each other.

Every command that writes a file checks all its destinations here before any work starts, so
a mistyped path fails in one line instead of replacing a device, a FIFO or the data it reads.
The inputs include the files a command reads beside the ones it is given (a run's manifest and
store, a model's manifest and the files of its folder), and the destinations include the files
it writes beside the ones it is given (a manifest, a store's log files and its lock). A
symbolic link is never a destination, nor a folder on the way to one: nothing is written
through one. Whether a destination can be written is decided by trying, and a file or folder
its owner made read-only is refused even where the user could write it anyway (root).

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
    refuse_linked_folders(option, path)
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
    # A file is replaced by one written beside it, and a store's side files are made beside
    # it: the folder must take a new file whether or not the file exists.
    if _read_only(folder) or not _takes_files(folder):
        raise ConfigurationError(f"{option} {path}: the folder {folder} is not writable")
    if mode is not None and (_read_only(path) or not _opens_for_writing(path)):
        raise ConfigurationError(f"{option} {path} is read-only")


def _read_only(path: Path) -> bool:
    """Whether `path`'s owner made it read-only (no write permission for the owner): refused
    even where the user can write it anyway, as root can."""
    return not os.stat(path).st_mode & stat.S_IWUSR


def _takes_files(folder: Path) -> bool:
    """Whether a file can be made in `folder`: tried, with a file removed at once."""
    try:
        handle, name = tempfile.mkstemp(prefix=".offline-recall-check-", dir=folder)
    except OSError:
        return False
    os.close(handle)
    os.unlink(name)
    return True


def _opens_for_writing(path: Path) -> bool:
    """Whether the regular file `path` opens for writing: tried, changing nothing in it."""
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        os.close(os.open(path, flags))
    except OSError:
        return False
    return True


def linked_folder(path: Path) -> Path | None:
    """The first folder on the way to `path` that is a symbolic link, else None. A link in the
    file system's root folder is the system's, passed (`/tmp` on macOS, `/bin` where `/usr` is
    merged): only an administrator can make one there."""
    absolute = path.absolute()  # the working folder as the system names it, without links
    walked = Path(absolute.anchor)
    for part in absolute.parts[1:-1]:
        walked = walked / part
        try:
            mode = os.lstat(walked).st_mode
        except OSError:
            return None  # no further folder exists, or none can be looked at
        if stat.S_ISLNK(mode) and walked.parent != Path(absolute.anchor):
            return walked
    return None


def refuse_linked_folders(what: str, path: Path) -> None:
    """Refuse, in one line, a `path` reached through a folder that is a symbolic link (see
    `linked_folder`): nothing is written through one. Checked before any work, and again
    where a run writes its last files, in case a folder was swapped for a link meanwhile."""
    link = linked_folder(path)
    if link is not None:
        raise ConfigurationError(
            f"{what} {path}: the folder {link} on its way is a symbolic link, which is never "
            "written through; give the path without links"
        )


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
