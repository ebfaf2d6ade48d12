"""A model's judge profile: the fitted rule that turns signals into a verdict.

A verdict's probability is a logistic model over named signals: "model" (the logit of the
model's P(yes)) and the lexical signals of `signals.py`. The plain rule, P(yes) >= the
manifest's threshold, is the profile with the model's logit alone at weight 1. `calibrate`
fits a profile on a user's labelled rows and stores it where later runs of the same model
and prompt version find it; a bundled model may ship one beside its manifest.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from ..data.destinations import written_whole
from ..engines.manifests import Veto, bundled_manifest_dir
from ..errors import ModelError
from ..paths import cache_root
from .behaviour import JudgeCard
from .cards import RuleCard, shipped_card
from .korean import has_hangul
from .signals import LEXICAL_SIGNALS, stated

RECALL = "context-recall-scorer"
MODEL_SIGNAL = "model"
SIGNALS = (MODEL_SIGNAL, *LEXICAL_SIGNALS)
SUPPORTING = (
    MODEL_SIGNAL,
    "overlap",
    "weighted_overlap",
    "evidence_overlap_1",
    "evidence_overlap_2",
    "evidence_overlap_3",
    "numbers",
    "bigrams",
    "names",
    "synonyms",
)
"""Signals of support: the model's P(yes), and how much of the claim (its words, rare words,
numbers, word pairs, names, synonyms) the context holds. A rule never weighs them against
support, whatever a data set's labels reward."""
OPPOSING = ("rarest_missing", "missing", "polarity", "opposite", "quantity_mismatch")
"""Signals against support: words of the claim the context lacks, and a negation, an opposite
or a quantity the context states otherwise. A rule never weighs them for support."""
PROFILE_SUFFIX = ".judge.json"
# P(yes) is clamped before its logit so that a certain model stays a finite signal.
_P_EDGE = 1e-6
LIMIT = 1e6
"""The largest size of a profile's means, weights and bias, and of its scales: far beyond any
fitted rule, and small enough that a verdict's logit stays a finite number."""
MIN_SCALE = 1e-9
"""The smallest scale: a signal that varies less than this over the rows fitted is constant
(`calibrate` gives it the scale 1)."""

# Every number of a profile is strict: `true` in a file is not a weight of 1, nor "0.5" a
# threshold (an integer is still a number).
Number = Annotated[float, Strict()]
Count = Annotated[int, Strict()]
Bounded = Annotated[Number, Field(ge=-LIMIT, le=LIMIT)]
"""A finite number of at most `LIMIT` either way."""
Scale = Annotated[Number, Field(ge=MIN_SCALE, le=LIMIT)]
"""A signal's spread: a finite number from `MIN_SCALE` to `LIMIT`."""
Share = Annotated[Number, Field(ge=0.0, le=1.0)]
"""A measure from 0 to 1 (an AUROC, a balanced accuracy)."""


class CrossValidated(BaseModel):
    """How the rule did on rows it was not fitted on (k-fold, grouped by claim)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    folds: Count = Field(ge=1)
    auroc: Share
    balanced_accuracy: Share = Field(description="At the profile's threshold")
    baseline_auroc: Share = Field(description="Word overlap on the same rows")
    baseline_balanced_accuracy: Share = Field(description="Word overlap at its best threshold")
    fold_aurocs: tuple[Share, ...] = Field(
        default=(), description="AUROC within each fold that held both labels"
    )
    claims: Count | None = Field(default=None, ge=0, description="Claims the rows hold")

    @property
    def spread(self) -> float | None:
        """The standard deviation of the folds' AUROC: how much the estimate can be trusted."""
        if len(self.fold_aurocs) < 2:
            return None
        mean = sum(self.fold_aurocs) / len(self.fold_aurocs)
        variance = sum((a - mean) ** 2 for a in self.fold_aurocs) / (len(self.fold_aurocs) - 1)
        return math.sqrt(variance)


class JudgeProfile(BaseModel):
    """A fitted decision rule for one scorer's verdicts, model fingerprint and prompt version.

    Every number is finite and in range (a file's NaN weight would decide every verdict), so a
    profile that is read is a rule that can be applied."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    scorer: str = Field(default=RECALL, description="The scorer whose verdicts the rule decides")
    model_fingerprint: str
    prompt_version: str
    signals: tuple[str, ...] = Field(description="Names from SIGNALS, in weight order")
    means: tuple[Bounded, ...]
    scales: tuple[Scale, ...]
    weights: tuple[Bounded, ...]
    bias: Bounded
    threshold: Share = Field(description="supported = probability >= threshold")
    evidence_sentences: Count | None = Field(
        default=None,
        gt=0,
        description="The model judges the claim against this many best-matching sentences "
        "of a chunk instead of the whole chunk; None: the whole chunk",
    )
    stated_p_yes: Number | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="The P(yes) an English claim its chunk states word for word (see "
        "`signals.stated`) is given without asking the model: the model's mean P(yes) on "
        "such pairs, where it changed at most 1% of verdicts on dev; None: the model is "
        "asked about every pair",
    )
    vetoes: tuple[Veto, ...] = Field(
        default=(),
        exclude_if=lambda vetoes: not vetoes,
        description="Checks that decide a pair unsupported, with probability 0, before the "
        "rule is read (and without asking the model): a claim whose number the context "
        "contradicts or never states is at most partly supported; (): none",
    )
    trained_on: str = ""
    rows: Count = Field(default=0, ge=0)
    seed: Count = 0
    cross_validated: CrossValidated | None = None
    korean: JudgeProfile | None = Field(
        default=None,
        description="The rule for a claim written in Hangul, where a model reads Korean "
        "meaning that word statistics miss; None: one rule for every claim. The profile's "
        "threshold decides both.",
    )
    card: JudgeCard | None = Field(
        default=None,
        exclude_if=lambda card: card is None,
        description="How often the profile was right per kind of behaviour case (unrelated "
        "context, contradicted number, name, place, negation, opposite; paraphrase), when it "
        "was fitted; None: not measured",
    )

    @model_validator(mode="after")
    def _consistent(self) -> JudgeProfile:
        unknown = [s for s in self.signals if s not in SIGNALS]
        if unknown:
            raise ValueError(f"unknown signals {unknown}; known: {', '.join(SIGNALS)}")
        n = len(self.signals)
        if not n or not len(self.means) == len(self.scales) == len(self.weights) == n:
            raise ValueError("signals, means, scales and weights must have one entry per signal")
        for signal, weight in zip(self.signals, self.weights, strict=True):
            if signal in SUPPORTING and weight < 0:
                raise ValueError(
                    f"signal {signal!r} has weight {weight:.3g}: a signal of support never "
                    "counts against support; refit the profile"
                )
            if signal in OPPOSING and weight > 0:
                raise ValueError(
                    f"signal {signal!r} has weight {weight:.3g}: a signal against support never "
                    "counts for support; refit the profile"
                )
        if self.korean is not None:
            korean = self.korean
            same = (self.scorer, self.model_fingerprint, self.prompt_version)
            if (
                korean.korean is not None
                or (
                    korean.scorer,
                    korean.model_fingerprint,
                    korean.prompt_version,
                )
                != same
            ):
                raise ValueError("the Korean rule is a rule of the same scorer, model, prompts")
            if korean.evidence_sentences != self.evidence_sentences:
                raise ValueError("the Korean rule asks the model with the same evidence_sentences")
            if korean.stated_p_yes is not None:
                raise ValueError("a Korean claim is always asked: its rule has no stated_p_yes")
            if korean.vetoes:
                raise ValueError(
                    "the profile's vetoes hold for every claim: the Korean rule has none"
                )
        return self

    @property
    def rules(self) -> tuple[JudgeProfile, ...]:
        """The rule for every claim, then the Korean rule if there is one."""
        return (self,) if self.korean is None else (self, self.korean)

    def rule_for(self, claim: str) -> JudgeProfile:
        """The rule that decides `claim`: the Korean one for a claim written in Hangul."""
        if self.korean is not None and has_hangul(claim):
            return self.korean
        return self

    @property
    def uses_model(self) -> bool:
        """Whether the rule needs the model's P(yes) at all."""
        return any(MODEL_SIGNAL in rule.signals for rule in self.rules)

    @property
    def uses_lexical(self) -> bool:
        """Whether the rule needs any lexical signal."""
        return (
            self.stated_p_yes is not None
            or bool(self.vetoes)
            or any(s in LEXICAL_SIGNALS for rule in self.rules for s in rule.signals)
        )

    @property
    def digest(self) -> str:
        """Identifies the rule, so a run's manifest can say which one decided."""
        # The card measures the rule; it is not the rule, so it is not hashed.
        text = self.model_dump_json(exclude=self._unset() | {"card": True})
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _unset(self) -> dict[str, Any]:
        """Fields left out of the profile's text: no Korean rule and no card are no field (in
        the Korean rule too), so a profile without them reads and hashes as before there could
        be one. Empty `vetoes` leave themselves out (the field's `exclude_if`)."""
        unset: dict[str, Any] = {"card": True} if self.card is None else {}
        if self.stated_p_yes is None:
            unset["stated_p_yes"] = True
        if self.korean is None:
            return unset | {"korean": True}
        return unset | {"korean": {"korean": True, "card": True, "stated_p_yes": True}}

    @property
    def is_plain(self) -> bool:
        """Whether the rule is the model's P(yes) itself, compared with the threshold."""
        return (
            self.korean is None
            and self.signals == (MODEL_SIGNAL,)
            and (
                self.means,
                self.scales,
                self.weights,
                self.bias,
            )
            == ((0.0,), (1.0,), (1.0,), 0.0)
        )

    def rule_card(self, card: JudgeCard) -> RuleCard:
        """`card`, measured on this plain rule, with what identifies the rule: the card a
        bundled model ships beside its manifest (`cards.py`)."""
        return RuleCard(
            scorer=self.scorer,
            model_fingerprint=self.model_fingerprint,
            prompt_version=self.prompt_version,
            profile=self.digest,
            card=card,
        )

    def asks_model(self, claim: str, values: Mapping[str, float]) -> bool:
        """Whether the rule needs the model's P(yes) for this pair (its lexical `values`)."""
        return (
            self.uses_model
            and not self.vetoed(values)
            and not (self.stated_p_yes is not None and stated(claim, values))
        )

    def vetoed(self, values: Mapping[str, float]) -> bool:
        """Whether one of the rule's `vetoes` decides the pair (its lexical `values`)."""
        return any(_VETO_CHECKS[veto](values) for veto in self.vetoes)

    def probability_of(self, claim: str, values: Mapping[str, float]) -> float:
        """P(supported) for a pair as a run decides it: 0 where a veto holds, else by the
        claim's rule (`rule_for`), with `stated_p_yes` for the model's P(yes) where the chunk
        states the claim word for word."""
        if self.vetoed(values):
            return 0.0
        if self.uses_model and self.stated_p_yes is not None and stated(claim, values):
            values = {**values, MODEL_SIGNAL: self.stated_p_yes}
        return self.rule_for(claim).probability(values)

    def probability(self, values: Mapping[str, float]) -> float:
        """P(supported) from the signal values (the "model" value is the model's P(yes))."""
        if self.is_plain:
            return min(1.0, max(0.0, values[MODEL_SIGNAL]))
        z = self.bias
        for name, mean, scale, weight in zip(
            self.signals, self.means, self.scales, self.weights, strict=True
        ):
            z += weight * (_value(name, values) - mean) / scale
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


_VETO_CHECKS: dict[str, Callable[[Mapping[str, float]], bool]] = {
    "contradicted_quantity": lambda values: values["quantity_mismatch"] > 0.0,
    "missing_number": lambda values: values["numbers"] < 1.0,
}


def _value(name: str, values: Mapping[str, float]) -> float:
    value = values[name]
    if name == MODEL_SIGNAL:
        p = min(1.0 - _P_EDGE, max(_P_EDGE, value))
        return math.log(p / (1.0 - p))
    return value


def threshold_profile(
    threshold: float,
    *,
    scorer: str = RECALL,
    fingerprint: str = "",
    prompt_version: str = "",
    stated_p_yes: float | None = None,
    vetoes: tuple[Veto, ...] = (),
) -> JudgeProfile:
    """The plain rule: supported when the model's P(yes) >= `threshold` (`stated_p_yes`
    standing for it where the chunk states the claim word for word, if given) and no veto
    holds."""
    return JudgeProfile(
        scorer=scorer,
        model_fingerprint=fingerprint,
        prompt_version=prompt_version,
        signals=(MODEL_SIGNAL,),
        means=(0.0,),
        scales=(1.0,),
        weights=(1.0,),
        bias=0.0,
        threshold=threshold,
        stated_p_yes=stated_p_yes,
        vetoes=vetoes,
        trained_on="none: the model manifest's threshold",
    )


class ProfileOrigin(StrEnum):
    """Where the profile that decides a run's verdicts came from."""

    GIVEN = "given"
    """Passed in by the caller (a file, or a profile object)."""
    CALIBRATED = "user-calibrated"
    """Stored by `offline-recall calibrate` for this model, scorer and prompt version."""
    SHIPPED = "shipped"
    """Shipped beside a bundled model's manifest."""
    THRESHOLD = "manifest threshold"
    """No profile: the manifest's plain threshold on the model's P(yes)."""


class FoundProfile(NamedTuple):
    profile: JudgeProfile
    origin: ProfileOrigin
    path: Path | None


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)


def user_profile_path(scorer: str, fingerprint: str, prompt_version: str) -> Path:
    """Where `calibrate` stores a profile, and where runs look for it first."""
    name = f"{_safe(fingerprint)}-{_safe(scorer)}-{_safe(prompt_version)}{PROFILE_SUFFIX}"
    return cache_root() / "profiles" / name


def _legacy_user_profile_path(fingerprint: str, prompt_version: str) -> Path:
    """Where earlier releases stored a context recall profile (no scorer in the name)."""
    return cache_root() / "profiles" / f"{_safe(fingerprint)}-{prompt_version}{PROFILE_SUFFIX}"


class UnreadableProfile(ModelError):
    """A judge profile file that cannot be read or is malformed; `path` is the file."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


def load_profile(path: Path) -> JudgeProfile:
    """A profile from a JSON file; a clear error (an `UnreadableProfile`) if it is unreadable
    or malformed."""
    try:
        return JudgeProfile.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError) as e:
        raise UnreadableProfile(
            path,
            f"judge profile {path} cannot be read ({_why(e)}); refit it with "
            "`offline-recall calibrate` or delete it",
        ) from e


def _own(profile: JudgeProfile, path: Path, wanted: tuple[str, str, str]) -> JudgeProfile:
    """`profile`, read from `path` where runs of `wanted` (scorer, model fingerprint, prompt
    version) look for their calibrated one, if it is theirs: a profile fitted for another
    model, prompt version or scorer is refused (an `UnreadableProfile`), never applied."""
    scorer, fingerprint, prompt_version = wanted
    fitted = {
        "model": (profile.model_fingerprint, fingerprint),
        "prompt version": (profile.prompt_version, prompt_version),
        "scorer": (profile.scorer, scorer),
    }
    for what, (its, ours) in fitted.items():
        if its != ours:
            raise UnreadableProfile(
                path,
                f"judge profile {path} was fitted for the {what} {its or '(none)'!r}, not this "
                f"run's {ours!r}; a profile decides only the runs it was fitted for: delete it "
                "or refit it with `offline-recall calibrate`",
            )
    return profile


def _why(error: Exception) -> str:
    """What is wrong with a profile file, in one line: for a malformed one, the first field
    refused and why (and how many more), not only that validation failed."""
    if not isinstance(error, ValidationError):
        return str(error).splitlines()[0]
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    more = error.error_count() - 1
    said = f"{where}: {first['msg']}" if where else str(first["msg"])
    return said + (f", and {more} more" if more else "")


def save_profile(profile: JudgeProfile, path: Path) -> Path:
    """Write `profile` to `path` (folders created) and return the path. It is written whole
    in place of `path` (see `written_whole`): a link at `path` is replaced, never followed."""
    with written_whole(path) as f:
        text = profile.model_dump(mode="json", exclude=profile._unset())
        f.write(json.dumps(text, indent=2) + "\n")
    return path


def _bundled_profiles() -> list[Path]:
    return sorted(bundled_manifest_dir().glob(f"*{PROFILE_SUFFIX}"))


def find_profile(
    scorer: str,
    fingerprint: str,
    prompt_version: str,
    threshold: float,
    stated_p_yes: float | None = None,
    vetoes: tuple[Veto, ...] = (),
) -> FoundProfile:
    """The rule a run of this scorer, model and prompt version uses: the user's calibrated
    profile if there is one, else the one shipped with a bundled model, else the manifest's
    plain threshold (with its `stated_p_yes` and `vetoes` for claims, see `JudgeProfile`), with
    the card shipped for that very rule if there is one (`cards.py`)."""
    wanted = (scorer, fingerprint, prompt_version)
    candidates = [user_profile_path(scorer, fingerprint, prompt_version)]
    if scorer == RECALL:
        candidates.append(_legacy_user_profile_path(fingerprint, prompt_version))
    for user in candidates:
        if user.is_file():
            return FoundProfile(
                _own(load_profile(user), user, wanted), ProfileOrigin.CALIBRATED, user
            )
    for path in _bundled_profiles():
        profile = load_profile(path)
        if (profile.scorer, profile.model_fingerprint, profile.prompt_version) == wanted:
            return FoundProfile(profile, ProfileOrigin.SHIPPED, path)
    plain = threshold_profile(
        threshold,
        scorer=scorer,
        fingerprint=fingerprint,
        prompt_version=prompt_version,
        stated_p_yes=stated_p_yes if scorer == RECALL else None,
        vetoes=vetoes if scorer == RECALL else (),
    )
    # The card is not hashed: the rule keeps the digest its card was measured on.
    card = shipped_card(scorer, fingerprint, prompt_version, plain.digest)
    if card is not None:
        plain = plain.model_copy(update={"card": card})
    return FoundProfile(plain, ProfileOrigin.THRESHOLD, None)
