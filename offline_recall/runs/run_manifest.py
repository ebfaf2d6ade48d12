"""A run's manifest: its spec, its input, and the files and software it ran with."""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path
from typing import Any

from pydantic import Field

from ..engines.manifests import PinnedFile
from ..engines.wheel_parts import sha256_file
from ..frozen import Frozen
from ..scorer.registry import scorer_kind
from .differences import describe_differences
from .resolve import ResolvedRun
from .spec import RunSpec


class InputSpec(Frozen):
    """The dataset a run scores and how its records are read."""

    path: str
    sha256: str
    mapping: dict[str, str] = Field(default_factory=dict)
    context_separator: str | None = None
    delimiter: str | None = None
    """A CSV file's delimiter as `--delimiter` gave it; None: read from its header line."""

    @classmethod
    def of(
        cls,
        path: Path,
        mapping: dict[str, str] | None = None,
        context_separator: str | None = None,
        sha256: str | None = None,
        delimiter: str | None = None,
    ) -> InputSpec:
        """The input `path`, its bytes' `sha256` taken now unless given (as `open_dataset`
        took it in its one pass over the file)."""
        return cls(
            path=str(path.resolve()),
            sha256=sha256 or sha256_file(path),
            mapping=dict(mapping or {}),
            context_separator=context_separator,
            delimiter=delimiter,
        )


class RunIdentity(Frozen):
    """What makes two invocations the same run: the same rows, scored the same way."""

    spec: dict[str, Any]
    input_sha256: str
    mapping: dict[str, str]
    context_separator: str | None
    delimiter: str | None = None

    @classmethod
    def of(cls, spec: RunSpec, data: InputSpec) -> RunIdentity:
        return cls(
            spec=spec.identity(),
            input_sha256=data.sha256,
            mapping=data.mapping,
            context_separator=data.context_separator,
            delimiter=data.delimiter,
        )

    def differences(self, other: RunIdentity) -> list[str]:
        """How `other` differs from this identity: spec fields, then the input's."""
        rest = {"spec"}
        return describe_differences(self.spec, other.spec) + describe_differences(
            self.model_dump(mode="json", exclude=rest), other.model_dump(mode="json", exclude=rest)
        )


class RunManifest(Frozen):
    """The spec, input, pinned files, prompt files and software of one scored run."""

    spec: RunSpec
    input: InputSpec
    model_files: tuple[PinnedFile, ...] = Field(
        description="Pinned weights and tokenizer files with their sha256"
    )
    chat_template_sha256: str
    prompt_files_sha256: dict[str, str] = Field(
        description="Per scorer, the sha256 of its prompt set's data file"
    )
    python: str


def build_manifest(run: ResolvedRun, data: InputSpec) -> RunManifest:
    """The manifest of a run about to score `data` as `run` says."""
    spec, manifest = run.spec, run.model.manifest
    return RunManifest(
        spec=spec,
        input=data,
        model_files=manifest.files,
        chat_template_sha256=hashlib.sha256(manifest.chat_template.encode()).hexdigest(),
        prompt_files_sha256={
            s.id: hashlib.sha256(scorer_kind(s.id).prompt_file(s.setup.prompt_version)).hexdigest()
            for s in spec.scorers
        },
        python=platform.python_version(),
    )
