"""Outputs never replace an input, each other, a device or a FIFO; refused in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main

ROW = {"input": "q", "groundTruth": "Paris is in France.", "context": ["Paris is in France."]}


def _data(folder: Path) -> Path:
    path = folder / "data.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    return path


def _score(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["score", *args, "--backend", "fake"])
    return result.exit_code, result.output


def _unchanged(path: Path, before: bytes) -> None:
    assert path.is_file()
    assert path.read_bytes() == before


def test_out_onto_a_fifo_is_refused_and_left_alone(tmp_path: Path) -> None:
    data = _data(tmp_path)
    fifo = tmp_path / "null"
    os.mkfifo(fifo)
    code, output = _score(str(data), "--out", str(fifo))
    assert code == 1
    assert "is a FIFO; give the path of a regular file" in output
    assert not Path(str(fifo) + ".manifest.json").exists()
    assert not Path(str(fifo) + ".run.sqlite").exists()
    assert fifo.is_fifo()


def test_out_onto_a_device_is_refused(tmp_path: Path) -> None:
    code, output = _score(str(_data(tmp_path)), "--out", "/dev/null")
    assert code == 1
    assert "/dev/null is a device" in output
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("restart", [False, True])
def test_store_equal_to_the_input_is_refused(tmp_path: Path, restart: bool) -> None:
    data = _data(tmp_path)
    before = data.read_bytes()
    extra = ["--restart"] if restart else []
    code, output = _score(
        str(data), "--out", str(tmp_path / "r.jsonl"), "--store", str(data), *extra
    )
    assert code == 1
    assert "--store" in output and "is the input" in output
    _unchanged(data, before)
    assert not (tmp_path / "r.jsonl").exists()


def test_store_equal_to_out_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, output = _score(str(_data(tmp_path)), "--out", str(out), "--store", str(out))
    assert code == 1
    assert "is also --out" in output
    assert list(tmp_path.iterdir()) == [tmp_path / "data.jsonl"]


def test_out_equal_to_the_input_is_refused(tmp_path: Path) -> None:
    data = _data(tmp_path)
    before = data.read_bytes()
    code, output = _score(str(data), "--out", str(tmp_path / "." / "data.jsonl"))
    assert code == 1
    assert "is the input" in output
    _unchanged(data, before)


def test_a_store_that_is_not_a_run_store_is_never_opened_or_removed(tmp_path: Path) -> None:
    other = tmp_path / "notes.sqlite"
    other.write_bytes(b"my own notes, not a database")
    for extra in ([], ["--restart"]):
        code, output = _score(
            str(_data(tmp_path)), "--out", str(tmp_path / "r.jsonl"), "--store", str(other), *extra
        )
        assert code == 1
        assert "is not a run store of offline-recall" in output
        assert "Traceback" not in output
        assert other.read_bytes() == b"my own notes, not a database"


def test_out_under_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, output = _score(str(_data(tmp_path)), "--out", str(blocker / "r.jsonl"))
    assert code == 1
    assert "is a file, not a folder" in output
    assert output.count("\n") == 1


def _scored(tmp_path: Path) -> Path:
    out = tmp_path / "r.jsonl"
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 0, output
    return out


def test_report_onto_its_results_is_refused(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    before = out.read_bytes()
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(out)])
    assert result.exit_code == 1
    assert "is the input RESULTS" in result.output
    _unchanged(out, before)


def test_compare_html_onto_a_run_is_refused(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    before = out.read_bytes()
    result = CliRunner().invoke(main, ["compare", str(out), str(out), "--html", str(out)])
    assert result.exit_code == 1
    assert "is the input" in result.output
    _unchanged(out, before)


def test_a_report_is_written_whole_and_a_stale_partial_file_removed(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    stale = tmp_path / ".report.html.partial-x1"
    stale.write_text("half a page")
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert result.exit_code == 0, result.output
    assert page.read_text().rstrip().endswith("</html>")
    assert not stale.exists()


def _victim(folder: Path) -> Path:
    victim = folder / "victim.txt"
    victim.write_text("someone else's file\n")
    return victim


def test_a_symlinked_store_lock_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "r.jsonl"
    Path(str(out) + ".run.sqlite.lock").symlink_to(victim)
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 1
    assert "lock" in output and "is a symbolic link" in output
    assert victim.read_text() == "someone else's file\n"
    assert not out.exists()


def test_the_store_lock_never_opens_a_link(tmp_path: Path) -> None:
    from offline_recall.errors import ConfigurationError
    from offline_recall.runs.lock import StoreLock, lock_path

    victim = _victim(tmp_path)
    store = tmp_path / "s.run.sqlite"
    lock_path(store).symlink_to(victim)
    with pytest.raises(ConfigurationError, match="is a symbolic link"):
        StoreLock(store).acquire()
    lock_path(store).unlink()
    lock_path(store).symlink_to(tmp_path / "absent")  # a dangling link creates nothing either
    with pytest.raises(ConfigurationError, match="is a symbolic link"):
        StoreLock(store).acquire()
    assert victim.read_text() == "someone else's file\n"
    assert not (tmp_path / "absent").exists()


@pytest.mark.parametrize("part", ["", "-wal", "-shm"])
def test_a_symlinked_store_file_is_refused(tmp_path: Path, part: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "r.jsonl"
    Path(f"{out}.run.sqlite{part}").symlink_to(victim)
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 1
    assert "is a symbolic link" in output
    assert victim.read_text() == "someone else's file\n"


def test_verify_of_a_received_store_writes_nothing_beside_it(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    store = Path(str(out) + ".run.sqlite")
    victim = _victim(tmp_path)
    Path(str(store) + ".lock").symlink_to(victim)
    result = CliRunner().invoke(main, ["verify", str(store)])
    assert result.exit_code == 0, result.output
    assert "1 identical, 0 differ" in result.output
    assert victim.read_text() == "someone else's file\n"


def test_an_output_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    out = _scored(tmp_path)
    victim = _victim(tmp_path)
    page = tmp_path / "report.html"
    page.symlink_to(victim)
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert result.exit_code == 1
    assert "is a symbolic link" in result.output
    assert page.is_symlink() and victim.read_text() == "someone else's file\n"


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    data = _data(tmp_path)
    runs = []
    for name in ("a.jsonl", "b.jsonl"):
        code, output = _score(str(data), "--out", str(tmp_path / name))
        assert code == 0, output
        runs.append(tmp_path / name)
    return runs[0], runs[1]


@pytest.mark.parametrize(
    ("beside", "named"),
    [
        (".manifest.json", "RUN_B's manifest"),
        (".run.sqlite", "RUN_B's run store"),
        (".run.sqlite-wal", "RUN_B's run store's -wal file"),
    ],
)
def test_compare_html_onto_a_file_of_a_run_is_refused(
    tmp_path: Path, beside: str, named: str
) -> None:
    a, b = _two_runs(tmp_path)
    target = Path(f"{b}{beside}")
    before = target.read_bytes() if target.exists() else None
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--html", str(target)])
    assert result.exit_code == 1
    assert f"is the input {named}" in result.output
    assert (target.read_bytes() if target.exists() else None) == before
    assert CliRunner().invoke(main, ["verify", str(b)]).exit_code == 0


@pytest.mark.parametrize(
    ("beside", "named"),
    [(".run.sqlite", "RESULTS's run store"), (".manifest.json", "RESULTS's manifest")],
)
def test_report_onto_a_file_of_its_run_is_refused(tmp_path: Path, beside: str, named: str) -> None:
    out = _scored(tmp_path)
    target = Path(f"{out}{beside}")
    before = target.read_bytes()
    result = CliRunner().invoke(main, ["report", str(out), "--out", str(target)])
    assert result.exit_code == 1
    assert f"is the input {named}" in result.output
    _unchanged(target, before)


def test_calibrate_out_onto_its_model_manifest_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "mine.toml"
    manifest.write_text('name = "mine"\n')
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text(json.dumps({"claim": "a", "context": "a", "label": 1}) + "\n")
    command = ["calibrate", "--data", str(labelled), "--model", str(manifest)]
    result = CliRunner().invoke(main, [*command, "--backend", "fake", "--out", str(manifest)])
    assert result.exit_code == 1
    assert "is the input --model" in result.output
    assert manifest.read_text() == 'name = "mine"\n'


def test_score_out_onto_its_model_manifest_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "mine.toml"
    manifest.write_text('name = "mine"\n')
    code, output = _score(str(_data(tmp_path)), "--model", str(manifest), "--out", str(manifest))
    assert code == 1
    assert "is the input --model" in output
    assert manifest.read_text() == 'name = "mine"\n'


def test_score_out_onto_a_pinned_file_of_the_model_is_refused(tmp_path: Path) -> None:
    from offline_recall.engines.manifests import load_manifest
    from offline_recall.engines.weights import source_dir
    from offline_recall.errors import ModelError

    manifest = load_manifest()
    try:
        pinned = source_dir(manifest) / manifest.files[0].path
    except ModelError:
        pytest.skip("the default model's weights are not installed")
    before = pinned.stat().st_mtime_ns
    code, output = _score(str(_data(tmp_path)), "--out", str(pinned))
    assert code == 1
    assert f"is the input --model's {manifest.files[0].path}" in output
    assert pinned.stat().st_mtime_ns == before


def test_pin_out_into_the_pinned_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    config = folder / "config.json"
    config.write_text('{"model_type": "llama"}\n')
    result = CliRunner().invoke(
        main, ["models", "pin", str(folder), "--name", "m", "--out", str(config)]
    )
    assert result.exit_code == 1
    assert "is the input FOLDER's config.json" in result.output
    assert config.read_text() == '{"model_type": "llama"}\n'


def test_out_through_a_linked_folder_is_refused_and_nothing_written_there(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "runs").symlink_to(elsewhere)
    out = tmp_path / "runs" / "today" / "r.jsonl"
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 1
    said = (
        f"Error: --out {out}: the folder {tmp_path / 'runs'} on its way is a symbolic link, "
        "which is never written through; give the path without links"
    )
    assert said in output
    assert list(elsewhere.iterdir()) == []


def test_a_link_in_the_file_systems_root_is_the_systems_and_passed() -> None:
    from offline_recall.data.destinations import linked_folder

    system = next((p for p in sorted(Path("/").iterdir()) if p.is_symlink()), None)
    if system is None:
        pytest.skip("no link in this file system's root folder")
    assert linked_folder(system / "x" / "r.jsonl") is None


def test_a_file_made_read_only_is_refused_even_to_root(tmp_path: Path) -> None:
    """Root can write any file, but a file its owner made read-only is kept as it is."""
    out = tmp_path / "r.jsonl"
    out.write_text("kept\n")
    out.chmod(0o444)
    code, output = _score(str(_data(tmp_path)), "--out", str(out))
    assert code == 1
    assert f"Error: --out {out} is read-only" in output
    _unchanged(out, b"kept\n")
    assert not Path(f"{out}.run.sqlite").exists()


def test_a_folder_made_read_only_is_refused_even_to_root(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    folder.chmod(0o555)
    out = folder / "r.jsonl"
    try:
        code, output = _score(str(_data(tmp_path)), "--out", str(out))
        assert code == 1
        assert f"Error: --out {out}: the folder {folder} is not writable" in output
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)
