"""The negatives every fit sees, made from the labelled claims (`judging.negatives`): each claim
against a context that is none of its own, each supported claim contradicted by rule; and
scripts/build_judge_profile.py's table of what they change, per kind, on held-out folds."""

from __future__ import annotations

from offline_recall.judging.labelled import LabelledPair
from offline_recall.judging.negatives import (
    KINDS,
    NAME,
    NEGATION,
    NUMBER,
    OPPOSITE,
    UNRELATED,
    changed_number,
    contradicted,
    kind_of,
    negated,
    opposed,
    unrelated,
    with_negatives,
)
from offline_recall.judging.signals import lexical_signals

from ..conftest import load_script

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
    made = unrelated(pairs)
    own: dict[str, set[str]] = {}
    for p in pairs:
        own.setdefault(p.group, set()).add(p.context)
    assert len(made) == len(own)
    for u in made:
        source = u.group.removeprefix(f"{UNRELATED}:")
        assert u.label is False and kind_of(u.group) == UNRELATED
        assert u.context not in own[source]
        assert u.claim == next(p.claim for p in pairs if p.group == source)
    assert unrelated(pairs) == made  # seeded


def test_each_supported_claim_is_contradicted_by_each_rule_that_applies() -> None:
    context = "Revenue rose to 4 billion dollars in 2019, the company said in Paris."
    assert changed_number("Revenue rose to 4 billion dollars.", context, "00ff") not in (
        None,
        "Revenue rose to 4 billion dollars.",
    )
    assert changed_number("The team has two coaches.", "It has two coaches.", "0003") == (
        "The team has five coaches."
    )
    assert negated("Revenue was higher.", context, "0") == "Revenue was not higher."
    assert negated("The drug did not work.", context, "0") == "The drug did work."
    assert opposed("Revenue rose last year.", context, "0") == "Revenue fell last year."
    # An opposite the context holds too would not contradict it.
    assert opposed("Revenue rose last year.", "It fell, then rose.", "0") is None
    pairs = [
        LabelledPair(context, "Revenue rose to 4 billion dollars in 2019.", True, "a"),
        LabelledPair("Mozart lived in Vienna.", "Mozart lived in Vienna.", True, "b"),
        LabelledPair(
            "The firm was founded by Anna Berg.", "It was founded by Anna Berg.", True, "d"
        ),
        LabelledPair("Unrelated.", "The claim is false.", False, "c"),
    ]
    made = contradicted(pairs)
    kinds = {kind_of(p.group) for p in made}
    assert kinds == {NUMBER, NAME, NEGATION, OPPOSITE}
    assert all(p.label is False and p.claim != pairs[0].claim for p in made)
    assert not any(p.group.endswith(":c") for p in made)  # an unsupported claim is left alone
    assert with_negatives(pairs)[: len(pairs)] == pairs
    assert contradicted(pairs) == made  # seeded


def test_the_table_judges_held_out_claims_with_and_without_them() -> None:
    pairs = with_negatives(_pairs())
    judged = [(p, lexical_signals(p.context, str(p.claim))) for p in pairs]
    table = SCRIPT.negatives_table(judged, {"overlap": ("overlap",)}, None)
    lines = table.splitlines()
    assert lines[2].startswith("| overlap | no |")
    assert lines[3].startswith("| overlap | yes |")
    made = [k for k in KINDS if any(kind_of(p.group) == k for p in pairs)]
    assert UNRELATED in made and lines[0].count("judged unsupported") == len(made)
    assert f"of {len(TOPICS) * 2 + 1} |" in lines[2]
