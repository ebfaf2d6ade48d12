"""What the docs say of the shipped models is what was measured: each Qwen judge's decisions on
unrelated contexts, per language, from its recorded P(yes) on the behaviour cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall import ContextRecallOptions, create_context_recall_scorer, load_manifest
from offline_recall.engines.fake import FakeEngine
from offline_recall.judging.behaviour import UNRELATED, cases
from offline_recall.judging.judge import Judge, PairVerdict
from offline_recall.judging.profile import threshold_profile

from ..conftest import case_key, recorded_p_yes

ROOT = Path(__file__).resolve().parents[2]
QWEN = ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct")


def _unrelated_row(model: str) -> str:
    """The model's row of the unrelated-contexts table: right per language at the manifest's
    threshold, decided as a run decides (its own rule), the highest P(yes) on an unrelated
    case and how many reach 0.3."""
    manifest = load_manifest(model)
    recorded = recorded_p_yes(model)
    question = create_context_recall_scorer(
        FakeEngine(), ContextRecallOptions(context=["x"])
    ).judge.question  # type: ignore[attr-defined]
    profile = threshold_profile(manifest.threshold, stated_p_yes=manifest.stated_p_yes)
    cells: dict[str, list[str]] = {"right": [], "highest": [], "near": []}
    for language in ("en", "ko"):
        chosen = [c for c in cases() if c.kind == UNRELATED and c.language == language]
        pairs = [(c.context, c.claim) for c in chosen]
        p_yes = [recorded[case_key(*pair)] for pair in pairs]
        answers = {question.prompt(*pair).fields: p for pair, p in zip(pairs, p_yes, strict=True)}
        found = Judge(FakeEngine(p_yes=answers), question, profile).assess(pairs)
        right = sum(
            isinstance(f, PairVerdict) and (f.probability >= manifest.threshold) == c.supported
            for f, c in zip(found, chosen, strict=True)
        )
        cells["right"].append(f"{right}/{len(chosen)}")
        cells["highest"].append(f"{max(p_yes):.3f}")
        cells["near"].append(str(sum(p >= 0.3 for p in p_yes)))
    right_en, right_ko = cells["right"]
    return (
        f"| `{model}` | {right_en} | {right_ko} | {' / '.join(cells['highest'])} | "
        f"{' / '.join(cells['near'])} |"
    )


@pytest.mark.parametrize("model", QWEN)
def test_the_unrelated_contexts_table_is_what_the_recorded_cases_say(model: str) -> None:
    judging = (ROOT / "docs" / "judging.md").read_text(encoding="utf-8")
    assert _unrelated_row(model) in judging.splitlines()


def test_no_page_promises_a_judge_rejects_every_unrelated_context() -> None:
    """The cases measure it; no page says it holds for every row (the 0.5B has judged an
    unrelated Korean chunk supported outside them)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        if page.name == "history.md":  # earlier rounds, as they were said then
            continue
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert "rejects every unrelated context" not in text, page.name


def _pinned_lines(model: str) -> str:
    """The model's wheels as pip reads them pinned: `NAME==VERSION --hash=sha256:SHA256`."""
    parts = load_manifest(model).source.parts
    return "\n".join(f"{part.requirement} --hash=sha256:{part.sha256}" for part in parts)


@pytest.mark.parametrize("model", QWEN)
def test_the_models_page_names_every_wheel_a_qwen_model_is_installed_from(model: str) -> None:
    """The page lists each pinned wheel with its sha256 as its manifest pins it, and the file
    they join into (name, bytes, sha256), so that a user can check them by hand."""
    page = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    manifest = load_manifest(model)
    block = f"```text\n{_pinned_lines(model)}\n```"
    assert block in page, f"docs/models.md should list, for {model}:\n{block}"
    pinned = manifest.files[0]
    size = manifest.description.split("(", 1)[1].split(" bytes", 1)[0]
    rows = [line for line in page.splitlines() if line.startswith(f"| `{model}` | `{pinned.path}`")]
    assert len(rows) == 1 and f"| {size} | `{pinned.sha256}` |" in rows[0], rows


@pytest.mark.parametrize("model", QWEN)
def test_the_hand_check_reads_each_piece_where_the_manifest_says_it_is(model: str) -> None:
    """The page's loop reads piece n of `PACKAGE` n's wheel at `PACKAGE<n>/data/partNN.bin`:
    true of every part the manifest pins, with the package, version and count the page gives."""
    page = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    parts = load_manifest(model).source.parts
    name, version = parts[0].requirement.split("==")
    package = name.removesuffix("1").replace("-", "_")
    given = f"MODEL={model} PACKAGE={package} VERSION={version} PARTS={len(parts)}"
    assert given in page
    for n, part in enumerate(parts, start=1):
        assert part.requirement == f"{package.replace('_', '-')}{n}=={version}"
        assert part.member == f"{package}{n}/data/part{n:02d}.bin"


def test_the_readme_gives_the_download_and_the_cache_after_conversion() -> None:
    """The 1.5B judge: the README's sizes are the models page's (its GGUF, its cache)."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    models = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    row = next(line for line in models.splitlines() if line.startswith("| `qwen2.5-coder-1.5b"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    download, cache = cells[2], cells[4].split(" (")[0]
    assert f"a {download} download, {cache} in the cache once converted" in readme
