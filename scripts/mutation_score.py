"""The mutation score of a `mutmut run`, per module, from the results it keeps in mutants/.

    python scripts/mutation_score.py PATTERN...      a Markdown table, then each survivor

A PATTERN is a mutant name glob, as `mutmut run` takes them ("offline_recall.report.stats.*");
only the mutants they match are counted. A mutant killed by a test, or one whose tests time out
on it (a mutant that loops forever), counts as killed; a survivor, or a mutant no test reaches,
does not. `mutmut show NAME` prints a survivor's change.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

MUTANTS = Path("mutants")
KILLED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout"}
"""mutmut's exit codes that mean a test caught the mutant (timeouts included)."""
SURVIVED = {0: "survived", 5: "no tests", 33: "no tests"}


def results(patterns: list[str]) -> dict[str, int | None]:
    """Each mutant the patterns match, with the exit code its tests ended with (None: not run)."""
    found: dict[str, int | None] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        try:
            codes = json.loads(meta.read_text())["exit_code_by_key"]
        except json.JSONDecodeError:  # being written by a run still going
            print(f"skipped {meta}: being written", file=sys.stderr)
            continue
        for name, code in codes.items():
            if any(fnmatch.fnmatch(name, p) for p in patterns):
                found[name] = code
    return found


def module(name: str) -> str:
    return name.rsplit(".", 1)[0]


def status(code: int | None) -> str:
    if code is None:
        return "not run"
    return KILLED.get(code) or SURVIVED.get(code) or f"exit {code}"


def table(found: dict[str, int | None]) -> list[str]:
    by_module: dict[str, Counter[str]] = {}
    for name, code in found.items():
        by_module.setdefault(module(name), Counter())[status(code)] += 1
    lines = [
        "| module | mutants | killed | survived | no tests | not run | killed share |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    total: Counter[str] = Counter()
    for name, counts in sorted(by_module.items()):
        total.update(counts)
        lines.append(_row(f"`{name}`", counts))
    lines.append(_row("**all**", total))
    return lines


def _row(label: str, counts: Counter[str]) -> str:
    mutants = sum(counts.values())
    killed = counts["killed"] + counts["timeout"]
    ran = mutants - counts["not run"]
    share = f"{killed / ran:.1%}" if ran else "-"
    return (
        f"| {label} | {mutants} | {killed} | {counts['survived']} | {counts['no tests']} "
        f"| {counts['not run']} | {share} |"
    )


def main(patterns: list[str]) -> int:
    if not patterns:
        print(__doc__, file=sys.stderr)
        return 2
    found = results(patterns)
    if not found:
        print("no mutant matches; run `make mutation` first", file=sys.stderr)
        return 1
    print("\n".join(table(found)))
    survivors = [n for n, c in found.items() if status(c) in ("survived", "no tests")]
    if survivors:
        print("\nsurvivors:")
        for name in survivors:
            print(f"  {name}: {status(found[name])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
