"""Calibration: a judge profile fitted for a run's model on labelled rows, what
`offline-recall calibrate` does. `calibrate.py` resolves the run to calibrate, judges every
labelled pair once on its model and fits a profile for each signal set asked; `fit.py` fits one
profile on the judged pairs, cross-validated by claim, beside word overlap's numbers; `rule.py`
fits each of its rules, a logistic regression whose weights keep their signals' signs."""

from .calibrate import (
    Calibration,
    calibrate,
    calibrate_sets,
    calibration_run,
    profile_auroc,
    profile_card,
)

__all__ = [
    "Calibration",
    "calibrate",
    "calibrate_sets",
    "calibration_run",
    "profile_auroc",
    "profile_card",
]
