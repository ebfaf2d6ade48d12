"""Runs: the run spec, the local runner, the run store, its manifest, and verify."""
