"""A pytest plugin that says what each test tier cost: every test's setup, call and teardown
time summed by its tier marker (the first of TIERS it carries, else the fast tier).

    PYTHONPATH=scripts PYTEST_ADDOPTS="-p tier_times" make test
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest

TIERS = ("qwen", "mastra", "install", "server", "vllm", "model", "llamacpp")
_tier: dict[str, str] = {}
_seconds: Counter[str] = Counter()
_tests: Counter[str] = Counter()
_started = time.perf_counter()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = {mark.name for mark in item.iter_markers()}
        _tier[item.nodeid] = next((t for t in TIERS if t in names), "fast")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    tier = _tier.get(report.nodeid, "fast")
    _seconds[tier] += report.duration
    if report.when == "call":
        _tests[tier] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.write_line(f"tiers: {time.perf_counter() - _started:.0f} s in all")
    for tier, seconds in _seconds.most_common():
        terminalreporter.write_line(f"  {tier}: {_tests[tier]} tests, {seconds:.0f} s")
