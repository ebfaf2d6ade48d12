"""Measure the behaviour card of every shipped judge, and write it in.

    python scripts/judge_cards.py [--check]

A card is a judge's count right per kind of behaviour case, per language
(`offline_recall/judging/behaviour_cases.jsonl`). It measures a rule and is not part of it (a
rule's digest leaves it out), so when the cases, the signals or a model's recorded P(yes) change,
every card is measured again here, each rule untouched:

- a shipped profile (`models/*.judge.json`) gets its card written into its file;
- a bundled model whose runs decide by its manifest's plain rule (P(yes) >= the threshold: the
  Qwen2.5 models) gets its card written beside the manifest, `models/<model>.card.json`, with
  the rule it measures (model fingerprint, prompt version, digest), which a run of that very
  rule shows.

Each case is decided as a run decides it (`JudgeProfile.probability_of`: a claim its context
states word for word is given the rule's `stated_p_yes`). No model is loaded or asked: a rule
that asks the model is decided on the model's P(yes) recorded for every case
(`tests/fixtures/<model>.cases.jsonl`, written by `scripts/record_signals.py --cases
--cases-out`). A case with no recorded P(yes) stops the script before it writes anything, naming
the command that records it. `--check` writes nothing and exits 1 if a card would change.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from record_signals import cases_command, cases_file, judge_name, key, read_cases

from offline_recall.engines.manifests import (
    bundled_manifest_dir,
    bundled_manifests,
    load_manifest,
)
from offline_recall.engines.onnx_weights import onnx_fingerprint
from offline_recall.judging.behaviour import JudgeCard, cases
from offline_recall.judging.cards import CARD_SUFFIX, RuleCard, card_path, save_card
from offline_recall.judging.profile import (
    MODEL_SIGNAL,
    RECALL,
    JudgeProfile,
    ProfileOrigin,
    _bundled_profiles,
    load_profile,
    save_profile,
)
from offline_recall.judging.signals import lexical_signals
from offline_recall.paths import CACHE_ENV
from offline_recall.runs.calibration import profile_card
from offline_recall.scorer.judge_setup import resolve_setup
from offline_recall.scorer.registry import scorer_kind

Change = tuple[Path, str, Callable[[], object]]
"""A card file to change: its path, what is done to it, and the call that does it."""


def measured(
    profile: JudgeProfile, lexical: list[dict[str, float]], judge: str | None = None
) -> JudgeCard:
    """`profile`'s card: each case decided on its lexical signals and, where the rule asks the
    model, the P(yes) recorded for the judge (by default the model the rule names); a case with
    none recorded stops the script."""
    values = lexical
    if profile.uses_model:
        model = judge or profile.model_fingerprint.partition("@")[0]
        path = cases_file(model)
        recorded = read_cases(path) if path.is_file() else {}
        missing = [c for c in cases() if key(c.context, c.claim) not in recorded]
        if missing:
            first = missing[0]
            sys.exit(
                f"{len(missing)} of {len(cases())} behaviour cases have no P(yes) of {model} in "
                f"{path} (the first: {first.kind}, {first.language}, {first.claim!r}); record "
                f"them with `{cases_command(model)}`, then run `python scripts/judge_cards.py`"
            )
        values = [
            {**v, MODEL_SIGNAL: recorded[key(c.context, c.claim)]}
            for c, v in zip(cases(), lexical, strict=True)
        ]
    card = profile_card(profile, list(values))
    assert card is not None  # no engine was asked: no case can fail
    return card


def plain_rules() -> list[tuple[str, JudgeProfile]]:
    """Each bundled model whose claim verdicts its manifest's plain rule decides, with that
    rule as a run resolves it, under the judge's name: the model's, and for a model that reads
    (asks its own P(yes)) the model's as the onnx engine converts it too (its own fingerprint,
    so its own rule and card)."""
    found = []
    # A user's calibrated profile in the cache is no shipped judge: resolve with an empty one.
    with tempfile.TemporaryDirectory() as empty:
        os.environ[CACHE_ENV] = empty
        for path in bundled_manifests():
            manifest = load_manifest(path)
            judges = {
                manifest.name: manifest.fingerprint,
                judge_name(manifest.name, "onnx"): onnx_fingerprint(manifest),
            }
            for judge, fingerprint in judges.items():
                setup = resolve_setup(
                    scorer_kind(RECALL),
                    fingerprint=fingerprint,
                    scorers=manifest.scorers,
                    manifest_prompt_version=manifest.prompt_version,
                    threshold=manifest.threshold,
                    stated_p_yes=manifest.stated_p_yes,
                    vetoes=manifest.vetoes,
                    decoding=manifest.decoding,
                )
                if setup.found.origin is not ProfileOrigin.THRESHOLD:
                    break  # a model with a shipped profile (the embedded one) reads no P(yes)
                found.append((judge, setup.setup.judge_profile))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on a change")
    args = parser.parse_args()

    lexical = [lexical_signals(c.context, c.claim) for c in cases()]
    changes: list[Change] = []
    for path in _bundled_profiles():
        profile = load_profile(path)
        if profile.scorer != RECALL:
            continue  # the behaviour cases are claims against a context
        card = measured(profile, lexical)
        print(f"{path.name}: {card.describe()}")
        if card != profile.card:
            updated = profile.model_copy(update={"card": card})
            changes.append((path, "card written", partial(save_profile, updated, path)))
    written: set[Path] = set()
    for judge, rule in plain_rules():
        card = measured(rule, lexical, judge)
        shipped = rule.rule_card(card)
        path = card_path(judge)
        written.add(path)
        print(f"{path.name}: {card.describe()}")
        before = RuleCard.model_validate_json(path.read_bytes()) if path.is_file() else None
        if shipped != before:
            changes.append((path, "written", partial(save_card, shipped, path)))
    # A card whose model now ships a profile, or is gone, measures no judge.
    for path in sorted(bundled_manifest_dir().glob(f"*{CARD_SUFFIX}")):
        if path not in written:
            changes.append((path, "removed", path.unlink))
    verb = "would change" if args.check else "changed"
    print(f"{len(changes)} cards {verb}" + "".join(f"\n  {p.name}: {w}" for p, w, _ in changes))
    if args.check:
        sys.exit(1 if changes else 0)
    for _, _, change in changes:
        change()


if __name__ == "__main__":
    main()
