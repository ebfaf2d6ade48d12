"""Measure the behaviour card of every shipped profile that reads text only, and write it in.

    python scripts/judge_cards.py [--check]

A card is a profile's count right per kind of behaviour case
(`offline_recall/judging/behaviour_cases.jsonl`). It measures the rule and is not part of it
(a profile's digest leaves it out), so when the cases or the signals change, the card is
measured again here and written into each shipped lexical profile, its rule untouched. No model
is loaded or asked: a profile that asks the model is left alone (its card needs the model's
recorded P(yes): `scripts/record_signals.py --cases`). `--check` writes nothing and exits 1 if
a card would change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from offline_recall.judging.behaviour import cases
from offline_recall.judging.profile import _bundled_profiles, load_profile, save_profile
from offline_recall.judging.signals import lexical_signals
from offline_recall.runs.calibration import profile_card


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on a change")
    args = parser.parse_args()

    values = [lexical_signals(c.context, c.claim) for c in cases()]
    changed: list[Path] = []
    for path in _bundled_profiles():
        profile = load_profile(path)
        if profile.card is None or profile.uses_model:
            continue
        card = profile_card(profile, list(values))
        assert card is not None  # no engine was asked: no case can fail
        print(f"{path.name}: {card.describe()}")
        if card != profile.card:
            changed.append(path)
            if not args.check:
                save_profile(profile.model_copy(update={"card": card}), path)
    verb = "would change" if args.check else "written"
    print(f"{len(changed)} cards {verb}" + "".join(f"\n  {p.name}" for p in changed))
    if args.check and changed:
        sys.exit(1)


if __name__ == "__main__":
    main()
