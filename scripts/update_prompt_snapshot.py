"""Rewrite the prompt snapshot after an intended change to a prompt set.

    python scripts/update_prompt_snapshot.py

The snapshot test (tests/scorer/test_prompts.py) pins the rendered messages of the prompt set; a
change to them is also a new prompt version, recorded with every result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scorer.test_prompts import SNAPSHOT, rendered  # noqa: E402

if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(rendered(), indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
