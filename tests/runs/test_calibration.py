"""Calibration on a run's model: the engines it starts are closed once the pairs are judged; a
session given to it is the caller's to close."""

from __future__ import annotations

from pathlib import Path

import pytest

from offline_recall.engines.manifests import DEFAULT_MODEL
from offline_recall.judging.labelled import LabelledPair
from offline_recall.runs.calibration import calibrate, calibration_run
from offline_recall.runs.session import Scoring

from ..conftest import RECALL
from ..judging.test_calibration import CONTEXT, labelled_rows


def _pairs() -> list[LabelledPair]:
    return [
        LabelledPair(
            context=CONTEXT, claim=str(r["claim"]), label=r["label"] == 1, group=str(r["id"])
        )
        for r in labelled_rows()
    ]


def test_calibrate_closes_the_engines_it_starts_and_no_session_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFLINE_RECALL_CACHE", str(tmp_path / "cache"))
    closed: list[Scoring] = []
    close = Scoring.close

    def counted(self: Scoring) -> None:
        closed.append(self)
        close(self)

    monkeypatch.setattr(Scoring, "close", counted)
    run = calibration_run(DEFAULT_MODEL, scorer_id=RECALL, backend="fake")
    started = calibrate(run, _pairs(), signals="lexical", folds=2, compare=False)
    assert len(closed) == 1

    given = Scoring.start(run)
    again = calibrate(run, _pairs(), scoring=given, signals="lexical", folds=2, compare=False)
    assert len(closed) == 1
    given.close()
    assert closed[-1] is given
    assert again.profile == started.profile
