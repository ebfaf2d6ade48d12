"""A bundled model's plain rule (P(yes) >= the manifest's threshold) carries the card shipped
for it, `models/<model>.card.json`, and shows it wherever the judge is named: the line `score`
and `serve` print, and the HTML report's header. A rule the card was not measured on carries
none."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from offline_recall.cli import main
from offline_recall.cli.summary import profile_line
from offline_recall.judging import cards
from offline_recall.judging.behaviour import JudgeCard, card_of, cases
from offline_recall.judging.cards import CARD_SUFFIX, save_card
from offline_recall.judging.disclosure import card_lines
from offline_recall.judging.profile import (
    RECALL,
    JudgeProfile,
    ProfileOrigin,
    find_profile,
    threshold_profile,
)
from offline_recall.runs.score import resolve
from offline_recall.runs.spec import ScorerSpec
from offline_recall.scorer.results import ScorerSetup

from ..conftest import case_key, load_script

CARDS_SCRIPT = load_script("judge_cards")
"""scripts/judge_cards.py: measures every shipped judge's card and writes it in."""

FINGERPRINT = "tiny@0123456789abcdef"
# A judge that answers no to every case: all unrelated cases right, no restatement.
CARD = card_of([False] * len(cases()))
ITEM = {
    "id": "q1",
    "input": "Where is the Eiffel Tower?",
    "groundTruth": "The Eiffel Tower is in Paris.",
    "context": ["The Eiffel Tower is a landmark in Paris, France."],
}


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder of bundled cards, in place of `models/`."""
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setattr(cards, "bundled_manifest_dir", lambda: folder)
    return folder


def _ship(folder: Path, rule: JudgeProfile, card: JudgeCard = CARD, name: str = "tiny") -> None:
    measured = rule.rule_card(card)
    save_card(measured, folder / f"{name}{CARD_SUFFIX}")


def _line(profile: JudgeProfile) -> str:
    setup = ScorerSetup(prompt_version="v4", judge_profile=profile)
    return profile_line(ScorerSpec(id=RECALL, setup=setup, profile_origin=ProfileOrigin.THRESHOLD))


def test_the_plain_rule_carries_the_card_shipped_for_it_and_keeps_its_digest(
    shipped: Path,
) -> None:
    rule = threshold_profile(0.5, fingerprint=FINGERPRINT, prompt_version="v4", stated_p_yes=0.92)
    _ship(shipped, rule)
    found = find_profile(RECALL, FINGERPRINT, "v4", 0.5, 0.92)
    assert found.origin is ProfileOrigin.THRESHOLD
    assert found.profile.card == CARD
    assert found.profile.digest == rule.digest
    # Another threshold, prompt version or model is another rule: the card measures none.
    assert find_profile(RECALL, FINGERPRINT, "v4", 0.6, 0.92).profile.card is None
    assert find_profile(RECALL, FINGERPRINT, "v3", 0.5, 0.92).profile.card is None
    assert find_profile(RECALL, "tiny@fedcba9876543210", "v4", 0.5, 0.92).profile.card is None


def test_the_line_score_prints_shows_a_plain_rules_card_after_its_digest() -> None:
    rule = threshold_profile(0.5, stated_p_yes=0.92).model_copy(update={"card": CARD})
    assert _line(rule) == (
        f"{RECALL}: judge profile manifest threshold: P(yes) >= 0.5 (an English claim its "
        f"chunk states word for word: 0.92 without asking the model), not calibrated "
        f"[{rule.digest}]; behaviour cases right: {CARD.describe()}"
    )
    assert CARD.describe().startswith("unrelated 38/38 (en 23/23, ko 15/15), number ")


def test_a_plain_rule_of_a_model_with_no_card_shows_none(shipped: Path) -> None:
    other = threshold_profile(0.5, fingerprint="tiny@fedcba9876543210", prompt_version="v4")
    _ship(shipped, other)
    found = find_profile(RECALL, FINGERPRINT, "v4", 0.5)
    assert found.profile.card is None
    line = _line(found.profile)
    assert line.endswith(f"not calibrated [{found.profile.digest}]")
    assert "behaviour cases" not in line
    assert card_lines([found.profile.digest]) == []


def test_score_prints_the_plain_rules_card_and_the_report_shows_it(
    shipped: Path, tmp_path: Path
) -> None:
    # The fake engine's run decides by its manifest's plain rule, as a Qwen model's does.
    scorer = resolve(backend="fake").spec.scorer(RECALL)
    assert scorer.profile_origin is ProfileOrigin.THRESHOLD
    digest = scorer.setup.judge_profile.digest
    _ship(shipped, scorer.setup.judge_profile, name="fake")
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(ITEM) + "\n")
    out = tmp_path / "results.jsonl"
    done = CliRunner().invoke(main, ["score", str(data), "--backend", "fake", "--out", str(out)])
    assert done.exit_code == 0, done.output
    said = " ".join(done.stderr.split())
    assert f"not calibrated [{digest}]; behaviour cases right: {CARD.describe()}" in said
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["results"][RECALL]["judge_profile"] == digest
    line = f"judge {digest}, behaviour cases right: {CARD.describe()}"
    assert card_lines([None, digest]) == [line]
    page = tmp_path / "report.html"
    done = CliRunner().invoke(main, ["report", str(out), "--out", str(page)])
    assert done.exit_code == 0, done.output
    assert f'<p class="meta judge-card">{html.escape(line)}</p>' in page.read_text()


def test_the_card_script_measures_a_plain_rule_on_every_cases_recorded_p_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = tmp_path / "tiny.cases.jsonl"
    monkeypatch.setattr(CARDS_SCRIPT, "cases_file", lambda model: recorded)
    rule = threshold_profile(0.5, fingerprint=FINGERPRINT, prompt_version="v4")
    every = cases()
    keys = [case_key(c.context, c.claim) for c in every]
    # The model says no to every case but the last, which it leaves unrecorded.
    recorded.write_text("".join(json.dumps({"key": k, "model": 0.1}) + "\n" for k in keys[:-1]))
    with pytest.raises(SystemExit) as stopped:
        CARDS_SCRIPT.measured(rule, [{}] * len(every))
    said = str(stopped.value.code)
    assert said.startswith(f"1 of {len(every)} behaviour cases have no P(yes) of tiny in")
    assert "python scripts/record_signals.py --model tiny --cases" in said
    assert said.endswith("then run `python scripts/judge_cards.py`")
    with recorded.open("a") as f:
        f.write(json.dumps({"key": keys[-1], "model": 0.1}) + "\n")
    assert CARDS_SCRIPT.measured(rule, [{}] * len(every)) == CARD
