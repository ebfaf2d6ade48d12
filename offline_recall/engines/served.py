"""Which model a server serves, and whether it is the pinned one.

A server names its model in `/v1/models`; vLLM also gives the weights' path (`root`) and its
length limit (`max_model_len`), llama.cpp's servers the path of the GGUF file. When that path
is on this machine, its files are hashed against the manifest's pins (or it is the verified
cache folder of a converted GGUF): the served model is the pinned one, and runs on it share the
pinned model's fingerprint (its claim cache and judge profiles). A path this machine cannot read
cannot be checked: the run is refused, unless the user accepts the server's word for it
(`check = "none"`), and then the fingerprint is the server's own description, so no claim
cache or profile of the pinned model is ever used for it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigurationError
from ..printable import printable
from .manifests import ModelManifest
from .server import Server
from .weights import _MARKER, cached_dir, source_dir
from .wheel_parts import sha256_file

Check = Literal["files", "none"]


class ServedModel(BaseModel):
    """What the server says about the model it serves, and how it was checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="The model's id on the server (what requests name)")
    owned_by: str | None = Field(default=None, description="The server's name for itself")
    root: str | None = Field(default=None, description="The served weights' path, if given")
    max_model_len: int | None = Field(default=None, description="Tokens a request may take")
    checked: Check = Field(description="files: hashed against the pins; none: taken on trust")

    def fingerprint(self, manifest: ModelManifest) -> str:
        """The pinned fingerprint for a checked model; else one of the server's description."""
        if self.checked == "files":
            return manifest.fingerprint
        text = f"{manifest.fingerprint}\0{self.id}\0{self.root}\0{self.max_model_len}"
        return f"served-{manifest.name}@{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _choose(server: Server, listed: dict[str, Any], wanted: str | None) -> dict[str, Any]:
    models = [m for m in listed.get("data") or [] if isinstance(m, dict) and m.get("id")]
    ids = [printable(str(m["id"]), 80) for m in models]
    listed_ids = ", ".join(ids[:SHOWN]) + (
        f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    )
    if wanted is not None:
        for m in models:
            if m["id"] == wanted:
                return m
        raise ConfigurationError(
            f"the model server at {server.base_url} does not serve {wanted!r} "
            f"(it serves: {listed_ids or 'nothing'}); check --served-model"
        )
    if len(models) != 1:
        raise ConfigurationError(
            f"the model server at {server.base_url} serves {len(models)} models "
            f"({listed_ids or 'none'}); name one with --served-model"
        )
    return models[0]


SHOWN = 10
"""Model ids a message lists at most."""

_HASHES: dict[tuple[str, int, int], str] = {}


def _sha256(path: Path) -> str:
    """A file's sha256, remembered while its size and modification time stay the same (a
    run checks the served model several times as it starts)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = sha256_file(path)
    return _HASHES[key]


def _holds(folder: Path, files: dict[str, str]) -> str | None:
    """Why `folder` does not hold each named file with its sha256, or None when it does."""
    for name, digest in files.items():
        if not (folder / name).is_file() or _sha256(folder / name) != digest:
            return f"{name} is missing or differs from its pin"
    return None


def _matches(path: Path, manifest: ModelManifest) -> str | None:
    """Why the local `path` is not the pinned model, or None when it is: the pinned files
    themselves, or the cache folder the pinned GGUF was converted into (its recorded hashes
    hold, and so do the GGUF's)."""
    pins = {f.path: f.sha256 for f in manifest.files}
    if path.is_file():
        ok = manifest.format == "gguf" and _sha256(path) in pins.values()
        return None if ok else "its sha256 is not the pinned one"
    converted = cached_dir(manifest)
    if manifest.format == "gguf" and path.resolve() == converted.resolve():
        marker = (
            json.loads((converted / _MARKER).read_text()) if (converted / _MARKER).is_file() else {}
        )
        if marker.get("fingerprint") != manifest.fingerprint:
            return "it is not the verified conversion of the pinned GGUF"
        return _holds(converted, marker.get("files", {})) or _holds(source_dir(manifest), pins)
    return _holds(path, pins)


def inspect_served(
    server: Server, manifest: ModelManifest, served_model: str | None, check: Check
) -> ServedModel:
    """The served model, checked against `manifest` as `check` says; refused if it differs."""
    entry = _choose(server, server.get("/models"), served_model)
    root = entry.get("root")
    length = entry.get("max_model_len")
    served = ServedModel(
        id=str(entry["id"]),
        owned_by=str(entry["owned_by"]) if entry.get("owned_by") else None,
        root=str(root) if root else None,
        max_model_len=length if type(length) is int and length > 0 else None,  # not a bool
        checked=check,
    )
    if check == "none":
        return served
    paths = [Path(p) for p in dict.fromkeys([served.root, served.id]) if p]
    local = [p for p in paths if p.is_absolute() and p.exists()]
    if not local:
        raise ConfigurationError(
            f"the model server at {server.base_url} serves {served.root or served.id}, which is "
            f"not on this machine to check against the pins of {manifest.name}; serve it from "
            "here, or pass -o check=none to take the server's word for it"
        )
    why = _matches(local[0], manifest)
    if why is not None:
        raise ConfigurationError(
            f"the model server at {server.base_url} serves {local[0]}, not the pinned "
            f"{manifest.name} ({why}); serve the pinned model or name its manifest with --model"
        )
    return served
