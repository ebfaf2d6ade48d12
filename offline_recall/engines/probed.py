"""Which dialect each model server was found to honour, remembered between runs.

Probing a server costs two requests per dialect tried (see `OpenAIEngine`); its verdict holds
as long as the server is the same one: at the same address, asked on the same endpoint, saying
the same of its model in `/v1/models` (id, owner, weights' path, length limit), asked for the
same pinned model by the same offline-recall with the same dialect table. Anything else is
another server, probed again. Each verdict is one small JSON file named by the sha256 of that
identity, in `servers/` under the cache folder ($OFFLINE_RECALL_CACHE, else the user's cache).
Only a probe that found a dialect is kept; a refusal is never remembered. A `servers/` that is
a symbolic link is never written into or cleared, and clearing removes only files named as
verdicts are (`<32 hex digits>.json`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._version import __version__
from ..data.destinations import refuse_link, written_whole
from ..errors import ConfigurationError
from ..paths import cache_root
from ..urls import shown_url
from .dialects import DIALECTS, Dialect, dialects_digest
from .manifests import ModelManifest
from .served import ServedModel

_VERDICT = re.compile(r"[0-9a-f]{32}\.json")
"""The name of a verdict's file: its identity's key."""


def default_servers_folder() -> Path:
    """`servers/` under the cache folder ($OFFLINE_RECALL_CACHE or the user's cache)."""
    return cache_root() / "servers"


class ServerIdentity(BaseModel):
    """What makes a probe's verdict hold for a later run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="The server's OpenAI API root")
    endpoint: str = Field(description="completions or chat")
    served_model: str = Field(description="The model's id on the server")
    owned_by: str | None
    root: str | None
    max_model_len: int | None
    model_fingerprint: str = Field(description="The pinned model's (its tokenizer's answers)")
    library_version: str = Field(description="The offline-recall that probed")
    dialects: str = Field(description="The sha256 of the dialect table that was probed")

    @classmethod
    def of(
        cls, base_url: str, endpoint: str, served: ServedModel, manifest: ModelManifest
    ) -> ServerIdentity:
        return cls(
            base_url=shown_url(base_url),
            endpoint=endpoint,
            served_model=served.id,
            owned_by=served.owned_by,
            root=served.root,
            max_model_len=served.max_model_len,
            model_fingerprint=manifest.fingerprint,
            library_version=__version__,
            dialects=dialects_digest(),
        )

    @property
    def key(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:32]


class ProbedServer(BaseModel):
    """One remembered verdict: the server, and the dialect it honoured."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    identity: ServerIdentity
    dialect: str


class ProbedServers:
    """The remembered verdicts, one file each in `folder`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_servers_folder()

    def _path(self, identity: ServerIdentity) -> Path:
        return self.folder / f"{identity.key}.json"

    def dialect(self, identity: ServerIdentity) -> Dialect | None:
        """The dialect this server was found to honour, or None if it is to be probed."""
        path = self._path(identity)
        try:
            found = ProbedServer.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):  # none yet, or unreadable: probe it again
            return None
        if found.identity != identity:
            return None
        return next((d for d in DIALECTS if d.name == found.dialect), None)

    def remember(self, identity: ServerIdentity, dialect: Dialect) -> None:
        """Keep the verdict. One that cannot be written costs the next run its probes, no more."""
        entry = ProbedServer(identity=identity, dialect=dialect.name)
        try:
            self.check()
            with written_whole(self._path(identity)) as f:
                f.write(entry.model_dump_json(indent=2) + "\n")
        except ConfigurationError:
            pass

    def entries(self) -> list[ProbedServer]:
        """The readable verdicts, by address."""
        found = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                found.append(ProbedServer.model_validate_json(path.read_bytes()))
            except (OSError, ValidationError):
                continue
        return sorted(found, key=lambda e: (e.identity.base_url, e.identity.served_model))

    def size(self) -> int:
        """Bytes the verdicts take."""
        return sum(p.stat().st_size for p in self.folder.glob("*.json") if p.is_file())

    def check(self) -> None:
        """Refuse, in one line, a folder that is a symbolic link: nothing is written or
        removed through one."""
        refuse_link("the probed-servers folder", self.folder)

    def _verdicts(self) -> list[Path]:
        return [
            p
            for p in self.folder.glob("*.json")
            if _VERDICT.fullmatch(p.name) and p.is_file() and not p.is_symlink()
        ]

    def clear(self) -> int:
        """Forget every verdict (the files named as verdicts are, nothing else); the number of
        files removed."""
        self.check()
        removed = 0
        for path in self._verdicts():
            path.unlink(missing_ok=True)
            removed += 1
        return removed
