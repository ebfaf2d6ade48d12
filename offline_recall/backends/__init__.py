"""Backends by name: one dict of lazy factories, so no engine is imported until used."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigurationError
from ..models import ModelManifest
from .base import Backend, BackendInfo, Failed
from .fake import FakeBackend

BackendFactory = Callable[[ModelManifest], Backend]


def _transformers(manifest: ModelManifest) -> Backend:
    from .transformers import TransformersBackend

    return TransformersBackend(manifest)


def _vllm(manifest: ModelManifest) -> Backend:
    from .vllm import VLLMBackend

    return VLLMBackend(manifest)


def _fake(manifest: ModelManifest) -> Backend:
    return FakeBackend(threshold=manifest.threshold, record_calls=False)


BACKENDS: dict[str, BackendFactory] = {
    "transformers": _transformers,
    "vllm": _vllm,
    "fake": _fake,
}


def create_backend(name: str, manifest: ModelManifest) -> Backend:
    """The backend `name` running `manifest`; an unknown name lists the known ones."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise ConfigurationError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")
    return factory(manifest)


__all__ = ["BACKENDS", "Backend", "BackendInfo", "Failed", "FakeBackend", "create_backend"]
