"""Writing a manifest that pins a user's own model folder (safetensors) by its hashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .manifests import sha256_file

# Files that decide what the model computes: weights, architecture, tokenizer, template.
_PINNED = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
)
_PICKLED = ("*.bin", "*.pt", "*.pth", "*.pkl", "*.ckpt")


def _chat_template(folder: Path) -> str:
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8")
    config = folder / "tokenizer_config.json"
    template = json.loads(config.read_text()).get("chat_template") if config.is_file() else None
    if not isinstance(template, str):
        raise ModelError(f"{folder} has no chat template; add chat_template.jinja to the folder")
    return template


def pin_folder(folder: Path, name: str) -> dict[str, Any]:
    """A manifest (as TOML-ready data) for `folder`, every weight and tokenizer file hashed.

    The threshold starts at 0.5 (P(yes) >= P(no)), the uncalibrated decision rule; no prompt
    version is named, so scorers use their latest prompts.
    """
    folder = folder.resolve()
    weights = sorted(folder.glob("*.safetensors"))
    if not weights:
        pickled = sorted(p.name for pattern in _PICKLED for p in folder.glob(pattern))
        hint = f" (found {', '.join(pickled)}: pickled weights are not loaded)" if pickled else ""
        raise ModelError(f"{folder} holds no .safetensors weights{hint}")
    files = weights + [folder / n for n in _PINNED if (folder / n).is_file()]
    config = (
        json.loads((folder / "config.json").read_text())
        if (folder / "config.json").is_file()
        else {}
    )
    window = config.get("max_position_embeddings")
    if not isinstance(window, int):
        raise ModelError(f"{folder}/config.json does not give max_position_embeddings")
    return {
        "name": name,
        "description": f"Local model folder {folder}",
        "format": "safetensors",
        "context_window": window,
        "threshold": 0.5,
        "chat_template": _chat_template(folder),
        "source": {
            "kind": "folder",
            "path": str(folder),
            "install": f"put the model's files back in {folder}",
        },
        "files": [{"path": f.name, "sha256": sha256_file(f)} for f in files],
    }
