"""What a user reads when a run's context cannot be taken as given: the warning that the
options are set aside, and each error of a run the scorer cannot read, word for word."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import offline_recall
from offline_recall import (
    DEFAULT_MODEL,
    ContextRecallOptions,
    FakeEngine,
    Status,
    create_context_recall_scorer,
)
from offline_recall.runs.score import resolve, session
from offline_recall.scorer.inputs import ContextWarning

RECALL = "context-recall-scorer"
TRUTH = "Paris is in France."
STATIC = ["Bananas are yellow fruit."]
OWN = {"groundTruth": TRUTH, "context": [TRUTH]}
PACKAGE = str(Path(offline_recall.__file__).resolve().parent)
SET_ASIDE = "a run carries its own `context`: it is scored, and the options' {} for it"


def recall(options: ContextRecallOptions) -> Any:
    return create_context_recall_scorer(FakeEngine(), options)


def extractor(chunks: Any) -> ContextRecallOptions:
    return ContextRecallOptions(context_extractor=lambda _input, _output: chunks)


@pytest.mark.parametrize(
    ("options", "unused"),
    [
        (ContextRecallOptions(context=STATIC), "static `context` is not used"),
        (extractor(STATIC), "`context_extractor` is not called"),
    ],
    ids=["static context", "extractor"],
)
def test_the_warning_says_which_option_is_set_aside(
    options: ContextRecallOptions, unused: str
) -> None:
    with pytest.warns(ContextWarning) as said:
        result = recall(options).run(OWN)
    assert [str(w.message) for w in said] == [SET_ASIDE.format(unused)]
    assert not said[0].filename.startswith(PACKAGE)  # the caller's line, not the library's
    assert result.score == 1.0


def test_a_run_carrying_the_static_context_itself_is_not_warned_about() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = recall(ContextRecallOptions(context=[TRUTH])).run(OWN)
    assert result.score == 1.0


def test_the_extractor_reads_the_runs_input() -> None:
    scorer = recall(ContextRecallOptions(context_extractor=lambda question, _output: [question]))
    result = scorer.run({"input": TRUTH, "groundTruth": TRUTH})
    assert (result.status, result.score) == (Status.OK, 1.0)


@pytest.mark.parametrize(
    ("chunks", "error"),
    [
        (TRUTH, "context_extractor must return a list of strings, got str"),
        (["Paris.", 3, None, 4], "context chunks must be strings, got NoneType, int"),
    ],
    ids=["text", "not text"],
)
def test_an_extractors_bad_answer_is_the_runs_error(chunks: Sequence[Any], error: str) -> None:
    result = recall(extractor(chunks)).run({"groundTruth": TRUTH})
    assert (result.status, result.error) == (Status.ERROR, f"ConfigurationError: {error}")


def test_a_run_that_is_not_a_mapping_is_its_own_error() -> None:
    runs: list[Any] = [["x"], OWN]
    results = recall(ContextRecallOptions(context=[TRUTH])).run_many(runs)
    assert results[0].reason == (
        "Not scored: ConfigurationError: an item is a ScorerInput or a mapping, got list"
    )
    assert results[1].score == 1.0


def test_a_spec_scorer_given_a_run_without_context_says_it_has_no_source() -> None:
    """A scorer built from a run spec reads the context from each run: it has no other."""
    run = resolve((RECALL,), model=DEFAULT_MODEL, backend="fake")
    scorer = session(run).scorers[RECALL]
    result = scorer.run({"groundTruth": TRUTH})
    assert result.reason == (
        "Not scored: ConfigurationError: the run carries no context and the scorer has no source"
    )


def test_control_characters_become_spaces() -> None:
    scorer = recall(ContextRecallOptions(context=["Paris\x00is in France."]))
    (verdict,) = scorer.run({"groundTruth": "Paris\x1bis in\x7fFrance."}).verdicts
    assert (verdict.claim, verdict.supported) == (TRUTH, True)
