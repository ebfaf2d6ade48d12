"""Calibration: a judge profile fitted for a run's model on labelled rows, what
`offline-recall calibrate` does. `run.py` resolves the run to calibrate and starts its engines;
`judged.py` judges every labelled pair once on its model; `calibrate.py` fits a profile for
each signal set asked; `fit.py` fits one profile on the judged pairs, cross-validated by claim,
beside word overlap's numbers; `rule.py` fits each of its rules, a logistic regression whose
weights keep their signals' signs."""

from .calibrate import Calibration, calibrate, calibrate_sets
from .judged import profile_auroc, profile_card
from .run import calibration_run

__all__ = [
    "Calibration",
    "calibrate",
    "calibrate_sets",
    "calibration_run",
    "profile_auroc",
    "profile_card",
]
