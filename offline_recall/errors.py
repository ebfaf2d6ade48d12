"""Errors a user can act on. Each message is one line that says what to do."""

from __future__ import annotations


class OfflineRecallError(Exception):
    """Base class for errors the user can fix (bad options, missing weights, bad model files)."""


class ConfigurationError(OfflineRecallError):
    """The scorer or a run was configured in a way that cannot work."""


class ModelError(OfflineRecallError):
    """A model manifest, its weights or its cache is missing, unverified or unreadable."""


class MissingExtraError(OfflineRecallError, ImportError):
    """An optional engine is not installed; the message names the exact install command."""

    def __init__(self, package: str, install: str) -> None:
        super().__init__(f"{package} is not installed; run: {install}")
        self.package = package
        self.install = install


class DatasetError(OfflineRecallError):
    """A data or results file cannot be read as a whole (unknown format, wrong shape)."""
