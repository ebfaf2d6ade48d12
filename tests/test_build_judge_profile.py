"""scripts/build_judge_profile.py's unrelated claims: each claim against a context that is none
of its own, as an unsupported claim of its own, and the table that says what they change."""

from __future__ import annotations

from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.signals import lexical_signals

from .conftest import load_script

SCRIPT = load_script("build_judge_profile")
TOPICS = [
    ("The bridge opened in 1932 and carries eight lanes.", "The bridge opened in 1932."),
    ("The river floods every spring near the delta.", "The river floods in spring."),
    ("Mozart wrote his first symphony at eight.", "Mozart wrote a symphony as a child."),
    ("The museum holds four thousand paintings.", "The museum holds paintings."),
    ("Copper conducts heat and electricity well.", "Copper conducts electricity."),
    ("The treaty was signed in Vienna in 1815.", "The treaty was signed in Vienna."),
]


def _pairs() -> list[LabelledPair]:
    pairs = []
    for i, (context, claim) in enumerate(TOPICS * 2):
        supported = i < len(TOPICS)
        text = claim if supported else claim.replace("The", "No", 1)
        pairs.append(LabelledPair(context=context, claim=text, label=supported, group=f"c{i}"))
    # A claim with two chunks, one shared with another claim: never its own unrelated context.
    pairs.append(LabelledPair(context=TOPICS[0][0], claim="It has lanes.", label=True, group="c0b"))
    return pairs


def test_every_claim_gets_one_context_that_is_none_of_its_own() -> None:
    pairs = _pairs()
    unrelated = SCRIPT._unrelated(pairs)
    own = {}
    for p in pairs:
        own.setdefault(p.group, set()).add(p.context)
    assert len(unrelated) == len(own)
    for u in unrelated:
        source = u.group.removeprefix(SCRIPT.UNRELATED)
        assert u.label is False
        assert u.context not in own[source]
        assert u.claim == next(p.claim for p in pairs if p.group == source)
    assert SCRIPT._unrelated(pairs) == unrelated  # seeded


def test_the_table_judges_held_out_claims_with_and_without_them() -> None:
    pairs = _pairs()
    pairs += SCRIPT._unrelated(pairs)
    judged = [(p, lexical_signals(p.context, str(p.claim))) for p in pairs]
    table = SCRIPT.unrelated_table(judged, {"overlap": ("overlap",)}, None)
    lines = table.splitlines()
    assert lines[2].startswith("| overlap | no |")
    assert lines[3].startswith("| overlap | yes |")
    assert all(line.endswith(f"of {len(TOPICS) * 2 + 1} |") for line in lines[2:])
