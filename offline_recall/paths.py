"""Where offline-recall keeps what it makes once and reuses: converted weights, claims, profiles."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_ENV = "OFFLINE_RECALL_CACHE"


def cache_root() -> Path:
    """$OFFLINE_RECALL_CACHE, else the user's cache directory (e.g. ~/.cache/offline-recall)."""
    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("offline-recall"))
