"""The cards shipped for the bundled models' plain rules.

A bundled model that ships no fitted profile decides by its manifest's plain rule (P(yes) >=
its threshold, `threshold_profile`). That rule's card, its count right per kind of behaviour
case (`behaviour.py`), is measured on the model's recorded P(yes) on the cases and shipped beside
the manifest as `<model>.card.json`, naming the rule it measures: the model's fingerprint, the
prompt version and the rule's digest. A run whose rule is that one carries the card, so it is
shown wherever the judge is named; a rule that changed (other weights, a new prompt version, a
threshold) has no card until `python scripts/judge_cards.py` measures it again.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..data.destinations import written_whole
from ..engines.manifests import bundled_manifest_dir
from ..errors import ModelError
from .behaviour import JudgeCard

CARD_SUFFIX = ".card.json"


class RuleCard(BaseModel):
    """A plain rule's card and the rule it measures."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scorer: str = Field(description="The scorer whose verdicts the rule decides")
    model_fingerprint: str
    prompt_version: str
    profile: str = Field(description="The digest of the rule the card was measured on")
    card: JudgeCard

    @property
    def rule(self) -> tuple[str, str, str, str]:
        """What a rule must match to carry the card: scorer, model fingerprint, prompt version
        and digest."""
        return (self.scorer, self.model_fingerprint, self.prompt_version, self.profile)


def card_path(model: str) -> Path:
    """Where the card of the bundled model `model`'s plain rule is shipped."""
    return bundled_manifest_dir() / f"{model}{CARD_SUFFIX}"


def bundled_cards() -> list[RuleCard]:
    """Every card shipped beside the bundled manifests; a malformed one is an error naming the
    file and the command that writes it again."""
    found = []
    for path in sorted(bundled_manifest_dir().glob(f"*{CARD_SUFFIX}")):
        try:
            found.append(RuleCard.model_validate_json(path.read_bytes()))
        except (OSError, ValidationError) as e:
            raise ModelError(
                f"judge card {path} cannot be read ({str(e).splitlines()[0]}); write it again "
                "with `python scripts/judge_cards.py`"
            ) from e
    return found


def shipped_card(
    scorer: str, fingerprint: str, prompt_version: str, digest: str
) -> JudgeCard | None:
    """The shipped card of the rule with this digest for this scorer, model fingerprint and
    prompt version; None when none was measured on it."""
    wanted = (scorer, fingerprint, prompt_version, digest)
    return next((c.card for c in bundled_cards() if c.rule == wanted), None)


def save_card(card: RuleCard, path: Path) -> Path:
    """Write `card` to `path` whole (see `written_whole`) and return the path."""
    with written_whole(path) as f:
        f.write(json.dumps(card.model_dump(mode="json"), indent=2) + "\n")
    return path
