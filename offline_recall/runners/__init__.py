"""What scores a dataset: the local and Ray runners, verify, run_evals, calibration."""
