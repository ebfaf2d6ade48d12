"""Judging: a verdict's probability from the model's answer and cheap signals, by a profile."""
