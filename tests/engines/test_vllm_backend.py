"""The vLLM engine on CPU with the embedded model (needs `make setup-vllm`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from offline_recall import (
    ContextRecallOptions,
    Engine,
    create_context_recall_scorer,
    create_engine,
    load_manifest,
)
from offline_recall.engines.vllm import native_dtype
from offline_recall.judging.judge import signal_values
from offline_recall.judging.labelled import LabelledPair
from offline_recall.runs.calibration.fit import fit_profile
from offline_recall.scorer.claims.prompts import load_prompts

from ..conftest import EXAMPLE, RECALL, recall, run_cli
from ..judging.test_calibration import CONTEXT, QUESTION, SUPPORTED, UNSUPPORTED

pytestmark = [pytest.mark.model, pytest.mark.vllm]

# Decisions are compared only where the transformers margin log P(yes) - log P(no) is at least
# this far from the threshold's margin. With vLLM in bfloat16 (its default on a CPU with
# AVX-512) and transformers in float32, over 96 example and WiCE pairs their margins differed
# by at most 0.165 (P(yes) by at most 0.037), flipping 3 near-ties; 0.25 is that largest
# difference with half again for room. In float32 on both they differ by about 1e-5.
MARGIN = 0.25
P_YES_TOLERANCE = 0.05


def _pairs() -> list[tuple[str, str]]:
    """Every (context chunk, claim-like sentence) pair of the example dataset."""
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    sentences = [s for r in rows for s in r["groundTruth"].split(". ") if s]
    contexts = [c for r in rows for c in r["context"]]
    return [(c, s) for c in contexts[:6] for s in sentences[:6]]


@pytest.fixture(scope="module")
def engine(model_cache: Path) -> Iterator[Engine]:
    vllm = create_engine("vllm")
    yield vllm
    vllm.close()


def _p_yes(engine: Engine, pairs: list[tuple[str, str]]) -> list[float]:
    prompts = load_prompts("v2")
    found = engine.answer_probabilities([prompts.judge_prompt(*p) for p in pairs], ("yes", "no"))
    return [f[0] for f in found if isinstance(f, tuple)]


def test_verdicts_agree_with_transformers(engine: Engine, embedded: Engine) -> None:
    pairs = _pairs()
    vllm_p = _p_yes(engine, pairs)
    hf_p = _p_yes(embedded, pairs)
    assert len(vllm_p) == len(hf_p) == len(pairs)
    threshold = load_manifest().threshold
    cut = math.log(threshold / (1 - threshold))
    compared = 0
    for (context, claim), pv, ph in zip(pairs, vllm_p, hf_p, strict=True):
        assert 0.0 <= pv <= 1.0
        assert pv == pytest.approx(ph, abs=P_YES_TOLERANCE), (context, claim)
        if abs(math.log(ph / (1 - ph)) - cut) >= MARGIN:
            compared += 1
            assert (pv >= threshold) == (ph >= threshold), (context, claim, pv, ph)
    assert compared >= len(pairs) // 2


def test_extraction_follows_the_schema(engine: Engine) -> None:
    scorer = create_context_recall_scorer(engine, ContextRecallOptions(context=["x"]))
    first, second = scorer.extract(
        ["Canberra is the capital of Australia.", "Water boils at 100 degrees Celsius."]
    )
    for claims in (first, second):
        assert isinstance(claims, list) and claims
        assert len(claims) <= load_manifest().scorers[RECALL].max_items


def _score_example_on_vllm(out: Path, model_cache: Path, *options: str) -> str:
    """The example scored by `offline-recall score --backend vllm` in a process of its own,
    with no claim cache; its standard output, then its standard error."""
    done = run_cli(
        "score",
        str(EXAMPLE),
        "--backend",
        "vllm",
        *options,
        "--no-cache",
        "--out",
        str(out),
        env={"OFFLINE_RECALL_CACHE": str(model_cache)},
    )
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("vllm-run") / "results.jsonl"
    return out, _score_example_on_vllm(out, model_cache)


def test_cli_scores_the_example_with_vllm(example_run: tuple[Path, str]) -> None:
    """A real process, as a user runs it: the engine spawns its workers from it."""
    out, stdout = example_run
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 13))
    assert sum(recall(r)["status"] == "ok" for r in rows) >= 10
    assert "mean recall" in stdout
    spec = json.loads(Path(f"{out}.manifest.json").read_text())["spec"]
    assert spec["engine"]["options"]["dtype"] == native_dtype()


def test_cli_keeps_vllms_own_messages_in_the_log_it_names(example_run: tuple[Path, str]) -> None:
    """vLLM's INFO and WARNING lines (its configuration, NUMA binding, Triton, torch's
    warnings), from this process and its workers, are in the log beside the results; the
    terminal shows the run's own lines and one line naming the log."""
    out, shown = example_run
    log = Path(f"{out}.engine.log")
    assert "vllm" in log.read_text()
    engine_lines = [line for line in shown.splitlines() if " INFO " in line or "WARNING" in line]
    assert engine_lines == [], engine_lines
    assert sum(str(log) in line for line in shown.splitlines()) == 1, shown


def test_scorer_on_vllm_is_repeatable(
    example_run: tuple[Path, str], tmp_path: Path, model_cache: Path
) -> None:
    """A second process scores the example again with nothing shared (no memo, no claim
    cache, a run store of its own): every claim and probability is computed again, and the
    result file is the same byte for byte."""
    first, _ = example_run
    again = tmp_path / "again.jsonl"
    _score_example_on_vllm(again, model_cache)
    assert again.read_bytes() == first.read_bytes()


def test_prompt_lookup_is_an_option_of_the_runs_identity(
    example_run: tuple[Path, str], tmp_path: Path, model_cache: Path
) -> None:
    """Speculative decoding by prompt lookup scores the example on the real engine, and the
    run records it: a near-tie can fall otherwise, so it is not a speed-only option."""
    plain, _ = example_run
    looked_up = tmp_path / "lookup.jsonl"
    _score_example_on_vllm(looked_up, model_cache, "-o", "speculative_tokens=4")
    rows = [json.loads(line) for line in looked_up.read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 13))
    assert sum(recall(r)["status"] == "ok" for r in rows) >= 10
    spec = json.loads(Path(f"{looked_up}.manifest.json").read_text())["spec"]
    assert spec["engine"]["options"]["speculative_tokens"] == 4
    digests = {json.loads(p.read_text().splitlines()[0])["spec_digest"] for p in (plain, looked_up)}
    assert len(digests) == 2


def test_calibration_signals_on_vllm_match_transformers(engine: Engine, embedded: Engine) -> None:
    """The model signal `calibrate` fits on: the claim against its best evidence sentences."""
    pairs = [(CONTEXT, c) for c in SUPPORTED + UNSUPPORTED]
    on_vllm = signal_values(engine, QUESTION, pairs, evidence_sentences=2)
    on_transformers = signal_values(embedded, QUESTION, pairs, evidence_sentences=2)
    for v, t in zip(on_vllm, on_transformers, strict=True):
        assert isinstance(v, dict) and isinstance(t, dict)
        assert v["model"] == pytest.approx(t["model"], abs=P_YES_TOLERANCE)
        assert {k: x for k, x in v.items() if k != "model"} == {
            k: x for k, x in t.items() if k != "model"
        }
    labelled = [LabelledPair(context, claim, claim in SUPPORTED, claim) for context, claim in pairs]
    profile = fit_profile(labelled, on_vllm, fingerprint="f", prompt_version="v", folds=3)  # type: ignore[arg-type]
    probabilities = [profile.probability(v) for v in on_vllm if isinstance(v, dict)]
    assert min(probabilities[: len(SUPPORTED)]) >= profile.threshold
    assert max(probabilities[len(SUPPORTED) :]) < profile.threshold


def test_precision_on_vllm_matches_transformers(engine: Engine, embedded: Engine) -> None:
    """Relevance verdicts asked of the model on both engines: the same ranking score under the
    shipped profile, and P(yes) within bfloat16's margin under the plain rule."""
    from offline_recall import ContextPrecisionOptions, create_context_precision_scorer
    from offline_recall.judging.profile import threshold_profile

    from ..metrics.test_precision import ANSWER, JUNK, RUN

    options = ContextPrecisionOptions(context=[JUNK, ANSWER])
    shipped = [create_context_precision_scorer(e, options).run(RUN) for e in (engine, embedded)]
    assert shipped[0].score == shipped[1].score == 0.5
    plain = [
        create_context_precision_scorer(e, options, profile=threshold_profile(0.5)).run(RUN)
        for e in (engine, embedded)
    ]
    for v, t in zip(plain[0].verdicts, plain[1].verdicts, strict=True):
        assert v.probability == pytest.approx(t.probability, abs=P_YES_TOLERANCE)
