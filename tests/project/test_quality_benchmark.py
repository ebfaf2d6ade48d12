"""The quality benchmark's pure parts: overlap baseline, claim matcher, metrics, data loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.quality import quality_data as data
from benchmarks.quality.quality_metrics import (
    ExtractionTally,
    auroc,
    auroc_interval,
    balanced_accuracy,
    content_words,
    correlations,
    match_claims,
    mean,
    overlap_recall,
    share_at_least,
    spearman_interval,
    tune_threshold,
    word_f1,
)


def test_content_words_drop_stop_words_case_and_punctuation() -> None:
    assert content_words("The Eiffel Tower is in PARIS, France.") == [
        "eiffel",
        "tower",
        "paris",
        "france",
    ]


def test_overlap_baseline_end_to_end_judges_each_sentence_against_its_best_context() -> None:
    contexts = ["The Eiffel Tower stands in Paris.", "It opened in 1889."]
    truth = "The Eiffel Tower is in Paris. It opened in 1889. It is painted gold."
    assert overlap_recall(truth, contexts, threshold=1.0) == pytest.approx(2 / 3)
    assert overlap_recall(truth, ["Nothing related."], threshold=0.5) == 0.0
    assert overlap_recall("", contexts, threshold=0.5) == 0.0


def test_matcher_is_one_to_one_and_thresholded() -> None:
    gold = ["Gary Gardner is 22 years old.", "Gardner is on loan at Nottingham Forest."]
    extracted = [
        "Gary Gardner is 22 years old.",
        "Gary Gardner is 22.",  # matches the same fact, which is already taken
        "Gardner is on loan at Forest.",
        "Tim Sherwood is the manager.",  # matches nothing
    ]
    assert match_claims(extracted, gold) == 2
    assert match_claims(extracted, gold, threshold=1.01) == 0
    assert word_f1("Gary Gardner is 22.", "Gary Gardner is 22 years old.") == pytest.approx(0.75)


def test_extraction_tally_micro_averages() -> None:
    tally = ExtractionTally()
    tally.add(["A cat sat.", "A dog ran."], ["A cat sat.", "A bird flew.", "A fish swam."])
    tally.add([], ["Something happened."])
    scores = tally.scores()
    assert scores["precision"] == 0.5
    assert scores["recall"] == 0.25
    assert scores["F1"] == pytest.approx(1 / 3)
    assert scores["count ratio"] == 0.5


def test_metrics_skip_failed_rows_and_are_none_when_undefined() -> None:
    labels = [1, 0, 1, 0, 1]
    scores = [0.9, 0.2, None, 0.4, 0.3]  # one failed row, left out
    assert auroc(labels, scores) == pytest.approx(0.75)
    assert balanced_accuracy(labels, scores, 0.25) == pytest.approx(0.75)
    assert auroc([1, 1], [0.2, 0.3]) is None  # one class
    assert mean([None, None]) is None
    assert share_at_least([0.5, 0.4, None], 0.5) == 0.5
    constant = correlations([0.1, 0.5, 0.9], [0.3, 0.3, 0.3])
    assert constant["Pearson"] is None and constant["MAE"] == pytest.approx(1 / 3)
    moving = correlations([0.1, 0.5, 0.9, None], [0.2, 0.4, 1.0, 0.5])
    assert moving["Spearman"] == pytest.approx(1.0) and moving["Kendall"] == pytest.approx(1.0)


def test_bootstrap_intervals_hold_the_estimate_and_need_both_labels() -> None:
    labels = [1, 0] * 20
    scores = [0.6 + (i % 7) / 20 if y else 0.2 + (i % 5) / 10 for i, y in enumerate(labels)]
    low, high = (float(x) for x in str(auroc_interval(labels, scores)).strip("[]").split(", "))
    assert low <= (auroc(labels, scores) or 0.0) <= high <= 1.0 and low < high
    assert auroc_interval([1, 1, 1], [0.1, 0.2, 0.3]) is None
    targets = [i / 40 for i in range(40)]
    rho = str(spearman_interval(targets, [t + (i % 3) / 10 for i, t in enumerate(targets)]))
    assert rho.startswith("[0.9") and spearman_interval([0.1, 0.2], [0.3, 0.4]) is None


def test_threshold_tuning_picks_the_best_balanced_accuracy() -> None:
    assert tune_threshold([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.8]) == 0.6
    assert tune_threshold([0, 1, 0, 1], [0.1, 0.3, 0.6, 0.8]) == 0.3


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_oracle_chunks_are_subset_by_claim_and_stable(tmp_path: Path) -> None:
    rows = [
        {
            "id": f"c{g}#chunk{k}",
            "group": f"c{g}",
            "claim": f"claim {g}",
            "context": f"chunk {k}",
            "label": g % 2,
            "label_raw": "supported" if g % 2 else "not_supported",
        }
        for g in range(10)
        for k in range(3)
    ]
    path = _write(tmp_path / data.WICE_CHUNKS, rows)
    picked = data.attribution(path, 4, seed=0)
    assert len({r.group for r in picked}) == 4 and len(picked) == 12
    assert picked == data.attribution(path, 4, seed=0)
    assert picked != data.attribution(path, 4, seed=1)
    assert len(data.attribution(path, None, seed=0)) == 30


def test_recall_rows_and_clapnq_conditions(tmp_path: Path) -> None:
    wice = _write(
        tmp_path / data.WICE_E2E,
        [{"id": "w1", "reference": "R", "contexts": ["A"], "expected": "some"}],
    )
    assert data.wice_e2e(wice, None, 0)[0].target == 1.0
    clap = _write(
        tmp_path / data.CLAPNQ_E2E,
        [
            {
                "id": 7,
                "reference": "R",
                "contexts_gold_sentences": ["g1", "g2"],
                "contexts_other_question_passage": ["o"],
            }
        ],
    )
    rows = data.clapnq(clap, None, 0)
    assert rows.gold[0].contexts == ("g1", "g2") and rows.other[0].contexts == ("o",)
    with pytest.raises(SystemExit, match="missing data file"):
        data.rose_e2e(tmp_path / data.ROSE_E2E, None, 0)


def _tiny_data(root: Path) -> None:
    """Every file of a data folder, a few rows each."""
    paris, rome = "The Eiffel Tower is in Paris.", "The Colosseum is in Rome."
    labels = [("supported", 1, paris), ("partially_supported", 0, rome)]
    labels += [("not_supported", 0, "Bananas are blue.")]
    _write(
        root / data.WICE_ARTICLE,
        [
            {"id": f"w{i}", "claim": c, "context": paris, "label": y, "label_raw": raw}
            for i, (raw, y, c) in enumerate(labels)
        ],
    )
    _write(
        root / data.WICE_CHUNKS,
        [
            {"id": f"w{i}#{k}", "group": f"w{i}", "claim": c, "context": ctx}
            | {"label": y, "label_raw": raw}
            for i, (raw, y, c) in enumerate(labels)
            for k, ctx in enumerate([paris, "Unrelated text."])
        ],
    )
    _write(
        root / data.WICE_E2E,
        [
            {"id": f"w{i}", "reference": c, "contexts": [paris], "expected": e}
            for i, ((_, _, c), e) in enumerate(zip(labels, ["all", "some", "none"], strict=True))
        ],
    )
    _write(
        root / data.KLUE,
        [
            {"id": f"k{i}", "claim": c, "context": ctx, "label": y, "label_raw": raw}
            for i, (c, ctx, y, raw) in enumerate(
                [
                    ("탑은 파리에 있다.", "에펠탑은 파리에 있다.", 1, "entailment"),
                    ("탑은 로마에 있다.", "에펠탑은 파리에 있다.", 0, "contradiction"),
                ]
            )
        ],
    )
    _write(root / data.ROSE_ACUS, [{"id": "r", "text": f"{paris} {rome}", "claims": [paris]}])
    _write(
        root / data.ROSE_E2E,
        [
            {"id": f"r{i}", "reference": f"{paris} {rome}", "contexts": [ctx], "human_recall": h}
            for i, (ctx, h) in enumerate([(paris, 0.5), (f"{paris} {rome}", 1.0), ("No.", 0.0)])
        ],
    )
    _write(
        root / data.CLAPNQ_E2E,
        [
            {
                "id": i,
                "reference": ref,
                "contexts_gold_sentences": [ref],
                "contexts_other_question_passage": ["Something else entirely."],
            }
            for i, ref in enumerate([paris, rome])
        ],
    )


def test_every_section_renders_on_the_fake_engine(tmp_path: Path) -> None:
    from benchmarks.quality import quality
    from benchmarks.quality.quality_variants import (
        given_claims_variants,
        model_variants,
        overlap_variant,
        sentence_overlap_variant,
    )
    from offline_recall.judging.profile import threshold_profile
    from offline_recall.metrics.recall import ContextRecallScorer
    from offline_recall.runs.score import resolve, session

    _tiny_data(tmp_path)
    # The fake engine answers P(yes) = the share of the claim's content words in the context,
    # and extracts a text's sentences.
    resolved = resolve(backend="fake", profiles={ContextRecallScorer.id: threshold_profile(0.5)})
    spec = resolved.spec
    scoring = session(resolved)
    facts = {"Paris is in France. Rome is in Spain.": ["Paris is in France."]}
    variants = [
        overlap_variant(0.6),
        sentence_overlap_variant(0.6),
        *model_variants(spec, scoring.engine),
        *given_claims_variants(spec, scoring.engine, facts),
    ]
    names = [v.name for v in variants]  # no one-JSON-call column: it runs on vLLM only
    version = spec.scorer(ContextRecallScorer.id).setup.prompt_version
    p_yes = f"model P(yes), prompt {version}"
    assert names == [
        "word overlap",
        "sentence overlap",
        "shipped",
        "shipped, expected recall",
        p_yes,
        "human facts, shipped judge",
        "human facts, expected",
        "sentences, shipped judge",
        "sentences, expected",
    ]
    sections = quality.all_sections(tmp_path, None, 0, variants)
    text = quality.table(sections, names)
    assert "nan" not in text.lower()
    judged = ["word overlap", "shipped", p_yes]
    wice = sections[0].rows
    assert {k: v for k, v in wice["claims scored (failed)"].items()} == dict.fromkeys(
        judged, "3 (0)"
    )
    assert wice["AUROC supported vs not_supported"] == dict.fromkeys(judged, 1.0)
    assert wice["AUROC"]["shipped, expected recall"] == "same as shipped"
    # Rome against Paris: none of its content words (colosseum, rome) is in the context, for
    # the fake engine's P(yes) as for the overlap baseline.
    assert wice["mean score (partially_supported)"] == dict.fromkeys(judged, 0.0)
    # The scorer's claims are the text's two sentences; one matches the one human fact.
    assert "KLUE" in sections[2].title
    assert set(sections[2].rows["claims scored (failed)"].values()) == {"2 (0)"}
    behaviour = sections[3].rows
    assert "behaviour" in sections[3].title
    assert behaviour["cases scored (failed)"]["word overlap"].endswith("(0)")
    assert set(behaviour["all kinds"]) == set(judged)
    extraction = sections[4].rows
    assert extraction["precision"]["shipped"] == 0.5
    assert extraction["recall"]["shipped"] == 1.0
    assert extraction["F1"][p_yes] == "same as shipped"
    assert extraction["F1"]["sentence overlap"] == "same as word overlap"
    assert "human facts, shipped judge" not in extraction["F1"]
    assert sections[7].rows["mean recall (other passage)"]["word overlap"] == 0.0
    gold = sections[7].rows["mean recall (gold sentences)"]
    assert gold["shipped"] == gold["sentence overlap"] == 1.0
    # Human facts exist for RoSE only; elsewhere those columns score nothing.
    rose = sections[5].rows
    assert rose["items scored (failed)"]["human facts, shipped judge"] != "0 (0)"
    assert sections[6].rows["items scored (failed)"]["human facts, expected"] == "0 (3)"
    only = quality.all_sections(tmp_path, None, 0, variants, ("klue", "wice_article"))
    assert [s.title for s in only] == [sections[0].title, sections[2].title]
