"""Writing a manifest that pins a user's own model folder (safetensors) by its hashes.

Besides the hashes, pinning reads what each model family does differently and records it, so
that every later run renders and reads prompts the same way:

- the context window, from config.json (a nested `text_config` too), or the tokenizer's
  maximum length where that is smaller;
- whether the chat template takes a system turn (Gemma's refuse one; some drop it): if not,
  the system instructions are folded into the first user turn;
- a thinking switch (`enable_thinking`) turned off, or an empty thinking block after the
  prompt for a template that opens one; a template's date variable fixed, so a prompt does
  not change with the day it is rendered;
- the tokens read as yes and no: each single-token spelling ("yes", " yes", "Yes", " Yes")
  as it follows the rendered prompt. A tokenizer with none for either word is refused.

A sequence classifier (`...ForSequenceClassification`) is pinned as a classifier verifier:
its supported label, the order of the pair and the longest pair it takes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from ..errors import ModelError
from .chat import folded, render_chat
from .weights import PINNED_LOADING
from .wheel_parts import sha256_file

# Files that decide what the model computes: weights, architecture, tokenizer, template.
_PINNED = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "vocab.json",
    "merges.txt",
    "tokenizer.model",
    "spm.model",
)
_PICKLED = ("*.bin", "*.pt", "*.pth", "*.pkl", "*.ckpt")
_WINDOW_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "n_ctx")
_SUPPORTED_LABELS = ("entailment", "entail", "supported", "support", "consistent", "yes")

SPELLINGS = {"yes": ("yes", " yes", "Yes", " Yes"), "no": ("no", " no", "No", " No")}
"""The spellings of each answer word that are read as that answer when they are one token."""

LLAMA_DATE = "26 Jul 2024"
"""The date Llama 3's template writes when it has no clock: fixed, so prompts never change."""

PairOrder = Literal["evidence-first", "statement-first"]


def _chat_template(folder: Path) -> str:
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8")
    config = folder / "tokenizer_config.json"
    template = json.loads(config.read_text()).get("chat_template") if config.is_file() else None
    if not isinstance(template, str):
        raise ModelError(f"{folder} has no chat template; add chat_template.jinja to the folder")
    return template


def _config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    if not path.is_file():
        raise ModelError(f"{folder} has no config.json")
    config: dict[str, Any] = json.loads(path.read_text())
    return config


def context_window(config: dict[str, Any], tokenizer_max: int | None = None) -> int | None:
    """The tokens a prompt and its answer may take: the config's position limit (or its text
    model's), capped by the tokenizer's maximum length when that is smaller and real."""
    found: int | None = None
    for where in (config, config.get("text_config") or {}):
        values = [where.get(key) for key in _WINDOW_KEYS]
        found = next((v for v in values if isinstance(v, int) and v > 0), None)
        if found is not None:
            break
    if found is None:
        return tokenizer_max
    if tokenizer_max is not None and 1 < tokenizer_max < found:
        return tokenizer_max
    return found


def _tokenizer(folder: Path) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError as e:  # pragma: no cover - transformers is a dependency
        raise ModelError("pinning reads the tokenizer with transformers; install it") from e
    try:
        return AutoTokenizer.from_pretrained(folder, **PINNED_LOADING)
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ModelError(f"the tokenizer in {folder} does not load: {first}") from e


def _tokenizer_max(tokenizer: Any) -> int | None:
    limit = getattr(tokenizer, "model_max_length", None)
    return limit if isinstance(limit, int) and limit < 10**7 else None


_SYSTEM_PROBE = "Instructions 7319."
_USER_PROBE = "Question 4682."


def _system_turn(tokenizer: Any, template: str, options: dict[str, Any]) -> str:
    """native when the template renders a system turn's text; fold when it refuses it (an
    exception) or drops it."""
    messages = [
        {"role": "system", "content": _SYSTEM_PROBE},
        {"role": "user", "content": _USER_PROBE},
    ]
    try:
        text = render_chat(tokenizer, template, messages, options=options)
    except Exception:
        text = ""
    if _SYSTEM_PROBE in text:
        return "native"
    try:
        text = render_chat(tokenizer, template, folded(messages), options=options)
    except Exception as e:
        raise ModelError(f"the chat template does not render a user turn: {e}") from e
    return "fold"


def _thinking(tokenizer: Any, template: str, options: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Template options and an answer prefix that make a thinking model answer at once."""
    if "enable_thinking" in template:
        return {**options, "enable_thinking": False}, ""
    if "<think>" not in template:
        return options, ""
    user = [{"role": "user", "content": _USER_PROBE}]
    text = render_chat(tokenizer, template, user, options=options)
    if text.rstrip().endswith("<think>"):
        return options, "\n</think>\n\n"
    return options, "<think>\n\n</think>\n\n"


def answer_tokens(tokenizer: Any, prompt: str) -> dict[str, list[dict[str, Any]]]:
    """Each answer word's single-token spellings as they follow `prompt`, in the tokenizer's
    own tokenization of prompt plus spelling; refuses a tokenizer that has none for a word."""

    def ids(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    head = ids(prompt)
    found: dict[str, list[dict[str, Any]]] = {}
    for word, spellings in SPELLINGS.items():
        seen: dict[int, str] = {}
        for spelling in spellings:
            whole = ids(prompt + spelling)
            if len(whole) == len(head) + 1 and whole[: len(head)] == head:
                seen.setdefault(whole[-1], spelling)
        if not seen:
            raise ModelError(
                f"this tokenizer has no single token for {word!r} (tried "
                f"{', '.join(repr(s) for s in spellings)}): P(yes) cannot be read from one "
                "forward pass, so this model cannot judge; pin another model"
            )
        found[word] = [{"text": text, "id": token} for token, text in seen.items()]
    return found


def _hashed(folder: Path) -> list[dict[str, str]]:
    weights = sorted(folder.glob("*.safetensors"))
    if not weights:
        pickled = sorted(p.name for pattern in _PICKLED for p in folder.glob(pattern))
        hint = f" (found {', '.join(pickled)}: pickled weights are not loaded)" if pickled else ""
        raise ModelError(f"{folder} holds no .safetensors weights{hint}")
    files = weights + [folder / n for n in _PINNED if (folder / n).is_file()]
    return [{"path": f.name, "sha256": sha256_file(f)} for f in files]


def _source(folder: Path) -> dict[str, str]:
    return {
        "kind": "folder",
        "path": str(folder),
        "install": f"put the model's files back in {folder}",
    }


def _is_classifier(config: dict[str, Any]) -> bool:
    return any(
        str(a).endswith("ForSequenceClassification") for a in config.get("architectures", [])
    )


def _supported_label(config: dict[str, Any], given: str | None) -> str:
    labels = [str(v) for v in (config.get("id2label") or {}).values()]
    if given is not None:
        if given not in labels:
            raise ModelError(f"label {given!r} is not one of the model's: {', '.join(labels)}")
        return given
    for wanted in _SUPPORTED_LABELS:
        for label in labels:
            if label.lower() == wanted:
                return label
    raise ModelError(
        f"which of the labels {', '.join(labels) or '(none)'} means supported? "
        "name it with --supported-label"
    )


def pin_folder(
    folder: Path,
    name: str,
    *,
    max_context: int | None = None,
    supported_label: str | None = None,
    pair_order: PairOrder = "evidence-first",
    judge_prompt: Path | None = None,
) -> dict[str, Any]:
    """A manifest (as TOML-ready data) for `folder`, every weight and tokenizer file hashed,
    and what its family needs recorded (see the module's docstring).

    `max_context` caps the context window (a long-context model's KV cache may not fit).
    `judge_prompt` names a file of the model's own yes/no question (a generative verifier).
    The threshold starts at 0.5 (P(yes) >= P(no)), the uncalibrated decision rule; no prompt
    version is named, so scorers use their latest prompts.
    """
    folder = folder.resolve()
    files = _hashed(folder)
    config = _config(folder)
    tokenizer = _tokenizer(folder)
    window = context_window(config, _tokenizer_max(tokenizer))
    if window is None:
        raise ModelError(
            f"{folder}/config.json gives no context length ({', '.join(_WINDOW_KEYS)})"
        )
    if max_context is not None:
        window = min(window, max_context)
    manifest: dict[str, Any] = {
        "name": name,
        "description": f"Local model folder {folder}",
        "format": "safetensors",
        "family": str(config.get("model_type", "unknown")),
        "context_window": window,
        "threshold": 0.5,
    }
    if _is_classifier(config):
        manifest["chat_template"] = ""
        manifest["classifier"] = {
            "supported_label": _supported_label(config, supported_label),
            "pair_order": pair_order,
            "max_length": window,
        }
    else:
        template = _chat_template(folder)
        options: dict[str, Any] = {}
        if "strftime_now" in template and "date_string" in template:
            options["date_string"] = LLAMA_DATE
        options, prefix = _thinking(tokenizer, template, options)
        system_turn = _system_turn(tokenizer, template, options)
        probe = [
            {"role": "system", "content": _SYSTEM_PROBE},
            {"role": "user", "content": _USER_PROBE},
        ]
        messages = folded(probe) if system_turn == "fold" else probe
        prompt = render_chat(tokenizer, template, messages, options=options) + prefix
        manifest["chat_template"] = template
        manifest["system_turn"] = system_turn
        if options:
            manifest["template_options"] = options
        if prefix:
            manifest["answer_prefix"] = prefix
        manifest["answers"] = answer_tokens(tokenizer, prompt)
    if judge_prompt is not None:
        manifest["judge_prompt"] = str(judge_prompt.resolve())
    manifest["source"] = _source(folder)
    manifest["files"] = files
    return manifest
