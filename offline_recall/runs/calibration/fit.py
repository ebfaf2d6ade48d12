"""Fitting a judge profile on labelled (claim, context, label) rows, cross-validated.

Each of the profile's rules is a sign-bounded logistic regression over the chosen signals
(`rule.py`). The numbers reported come from k-fold cross-validation grouped by claim: each
fold's rule, and its threshold, are fitted without the fold's rows. The stored rule is then
fitted on all rows, with the threshold that maximises balanced accuracy over the out-of-fold
probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...errors import DatasetError
from ...judging.korean import has_hangul
from ...judging.labelled import LabelledPair
from ...judging.negatives import kind_of
from ...judging.profile import MODEL_SIGNAL, RECALL, CrossValidated, JudgeProfile
from ...judging.signals import LEXICAL_SIGNALS, word_overlap
from .rule import RULE_WEIGHTS, Rule, fit_logistic, predict

if TYPE_CHECKING:  # numpy and scikit-learn load with a fit: applying a profile needs neither
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[np.float64]

# What `calibrate` fits by default: the model's P(yes) beside every lexical signal.
DEFAULT_SIGNALS = (MODEL_SIGNAL, *LEXICAL_SIGNALS)
SIGNAL_SETS: dict[str, tuple[str, ...]] = {
    "all": DEFAULT_SIGNALS,
    "lexical": LEXICAL_SIGNALS,
    "model": (MODEL_SIGNAL,),
}
"""Named sets of signals a profile may combine."""


def best_threshold(labels: Sequence[bool] | NDArray[np.bool_], scores: Matrix) -> float:
    """The cut on `scores` with the highest balanced accuracy (ties: the lowest cut)."""
    import numpy as np
    from sklearn.metrics import balanced_accuracy_score

    y = np.asarray(labels, dtype=bool)
    cuts = np.unique(scores)
    accuracy = [balanced_accuracy_score(y, scores >= c) for c in cuts]
    return float(cuts[int(np.argmax(accuracy))])


def _group_max(scores: Matrix, groups: Sequence[str]) -> tuple[list[str], Matrix]:
    import numpy as np

    best: dict[str, float] = {}
    for g, s in zip(groups, scores, strict=True):
        best[g] = max(best.get(g, -np.inf), float(s))
    names = list(best)
    return names, np.array([best[g] for g in names])


def _labelled(names: list[str], scores: Matrix) -> tuple[list[str], Matrix]:
    """The labelled claims of `names` and their scores: made claims left out."""
    keep = [i for i, g in enumerate(names) if kind_of(g) is None]
    return [names[i] for i in keep], scores[keep]


def _claim_best(scores: Matrix, groups: Sequence[str]) -> tuple[list[str], Matrix]:
    """Each labelled claim with its best pair's score."""
    return _labelled(*_group_max(scores, groups))


class _Labels(NamedTuple):
    """The labels of the pairs and of their claims (made claims among the pairs, not among
    the claims)."""

    groups: list[str]
    pair: NDArray[np.bool_]
    made: NDArray[np.bool_]
    """Pairs whose claim was made from a labelled one (`negatives`)."""
    of_claim: dict[str, bool]
    names: list[str]
    """The labelled claims, in order of first appearance."""
    claim: NDArray[np.bool_]

    @classmethod
    def of(cls, pairs: Sequence[LabelledPair]) -> _Labels:
        import numpy as np

        groups = [p.group for p in pairs]
        of_claim = {p.group: p.label for p in pairs}
        names = [g for g in dict.fromkeys(groups) if kind_of(g) is None]
        claim = np.array([of_claim[g] for g in names], dtype=bool)
        if len(set(claim.tolist())) < 2:
            raise DatasetError("calibration needs both supported and unsupported claims")
        return cls(
            groups=groups,
            pair=np.array([p.label for p in pairs], dtype=bool),
            made=np.array([kind_of(g) is not None for g in groups], dtype=bool),
            of_claim=of_claim,
            names=names,
            claim=claim,
        )

    def folds(self, asked: int) -> int:
        """`asked` folds, no more than claims of the rarer label."""
        found = min(asked, len(self.names), int(min(self.claim.sum(), (~self.claim).sum())))
        if found < 2:
            raise DatasetError("calibration needs at least two claims of each label")
        return found


def _rules(
    pairs: Sequence[LabelledPair],
    values: Sequence[dict[str, float]],
    signals: Sequence[str],
    korean_signals: Sequence[str] | None,
) -> list[Rule]:
    """The rule over `signals`, and with `korean_signals` a second one for claims in Hangul
    (the first then decides the others)."""
    import numpy as np

    korean = np.array(
        [korean_signals is not None and has_hangul(str(p.claim)) for p in pairs], dtype=bool
    )
    rules = [Rule.of(np.flatnonzero(~korean), values, signals)]
    if korean_signals is not None:
        if korean.all() or not korean.any():
            raise DatasetError("a Korean rule needs claims in Korean and claims in other languages")
        rules.append(Rule.of(np.flatnonzero(korean), values, korean_signals))
    return rules


def _predicted(rules: Sequence[Rule], labels: _Labels, train: NDArray[np.bool_]) -> Matrix:
    """Every row's probability under the rules fitted on the `train` rows."""
    import numpy as np

    found = np.zeros(len(labels.groups))
    for rule in rules:
        inside = train[rule.rows]
        if len(set(labels.pair[rule.rows][inside].tolist())) < 2:
            raise DatasetError("each rule needs claims of both labels in every fold")
        fitted = fit_logistic(
            rule.x[inside],
            labels.pair[rule.rows][inside],
            rule.fitted,
            labels.made[rule.rows][inside],
        )
        found[rule.rows] = predict(rule.x, fitted, rule.offset)
    return found


class _OutOfFold(NamedTuple):
    """What cross-validation found: each pair's probability from the fold that held it out,
    each labelled claim's decision at its fold's threshold, and each fold's AUROC."""

    scores: Matrix
    decisions: dict[str, bool]
    aurocs: list[float]


def _cross_validate(rules: Sequence[Rule], labels: _Labels, folds: int) -> _OutOfFold:
    """The rules fitted `folds` times without a fold's claims, and judged on them."""
    import numpy as np
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    groups, y_pair = labels.groups, labels.pair
    found = _OutOfFold(np.zeros(len(groups)), {}, [])
    for train, test in GroupKFold(n_splits=folds).split(y_pair, y_pair, groups):
        in_train = np.zeros(len(groups), dtype=bool)
        in_train[train] = True
        fold = _predicted(rules, labels, in_train)
        found.scores[test] = fold[test]
        train_names, train_best = _claim_best(fold[train], [groups[i] for i in train])
        cut = best_threshold([labels.of_claim[g] for g in train_names], train_best)
        test_names, test_best = _claim_best(found.scores[test], [groups[i] for i in test])
        found.decisions.update(zip(test_names, (test_best >= cut).tolist(), strict=True))
        test_labels = [labels.of_claim[g] for g in test_names]
        if len(set(test_labels)) == 2:
            found.aurocs.append(float(roc_auc_score(test_labels, test_best)))
    return found


def _checked(
    pairs: Sequence[LabelledPair],
    labels: _Labels,
    folds: int,
    found: _OutOfFold,
    claim_scores: Matrix,
) -> CrossValidated:
    """The cross-validated numbers, beside word overlap's on the same claims."""
    import numpy as np
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    y_claim = labels.claim
    overlap = np.array([word_overlap(p.context, str(p.claim)) for p in pairs])
    _, claim_overlap = _claim_best(overlap, labels.groups)
    overlap_cut = best_threshold(y_claim, claim_overlap)
    return CrossValidated(
        folds=folds,
        auroc=float(roc_auc_score(y_claim, claim_scores)),
        balanced_accuracy=float(
            balanced_accuracy_score(y_claim, [found.decisions[g] for g in labels.names])
        ),
        baseline_auroc=float(roc_auc_score(y_claim, claim_overlap)),
        baseline_balanced_accuracy=float(
            balanced_accuracy_score(y_claim, claim_overlap >= overlap_cut)
        ),
        fold_aurocs=tuple(found.aurocs),
        claims=len(labels.names),
    )


class _Identity(NamedTuple):
    """What every rule of one profile records of where it applies and how it was fitted."""

    scorer: str
    model_fingerprint: str
    prompt_version: str
    evidence_sentences: int | None
    seed: int


def _stored_rule(
    rule: Rule, labels: _Labels, threshold: float, identity: _Identity
) -> JudgeProfile:
    """`rule` fitted on all its rows, as a profile deciding at `threshold`."""
    fitted = fit_logistic(rule.x, labels.pair[rule.rows], rule.fitted, labels.made[rule.rows])
    return JudgeProfile(
        **identity._asdict(),
        signals=(*rule.fitted, *rule.ruled),
        means=(*(float(m) for m in fitted.mean), *(0.0 for _ in rule.ruled)),
        scales=(*(float(s) for s in fitted.scale), *(1.0 for _ in rule.ruled)),
        weights=(
            *(float(w) for w in fitted.model.coef),
            *(RULE_WEIGHTS[s] for s in rule.ruled),
        ),
        bias=fitted.model.intercept,
        threshold=threshold,
        rows=len(rule.rows),
    )


def fit_profile(
    pairs: Sequence[LabelledPair],
    values: Sequence[dict[str, float]],
    *,
    fingerprint: str,
    prompt_version: str,
    scorer: str = RECALL,
    signals: Sequence[str] = DEFAULT_SIGNALS,
    evidence_sentences: int | None = None,
    folds: int = 5,
    seed: int = 0,
    trained_on: str = "",
    korean_signals: Sequence[str] | None = None,
) -> JudgeProfile:
    """A profile fitted on `pairs`, whose signal `values` the judge computed, cross-validated.

    With `korean_signals`, claims written in Hangul get a rule of their own over those
    signals (the profile's `korean`), fitted on them alone; the threshold and the
    cross-validated numbers are over every claim. Claims made from the labelled ones
    (`negatives`: their groups name their kind) weigh in the fit, but the threshold and the
    cross-validated numbers are the labelled claims' alone: an unrelated context is easy to
    reject, and would flatter them."""
    labels = _Labels.of(pairs)
    folds = labels.folds(folds)
    rules = _rules(pairs, values, signals, korean_signals)
    found = _cross_validate(rules, labels, folds)
    _, claim_scores = _claim_best(found.scores, labels.groups)
    checked = _checked(pairs, labels, folds, found, claim_scores)
    threshold = best_threshold(labels.claim, claim_scores)
    identity = _Identity(scorer, fingerprint, prompt_version, evidence_sentences, seed)
    every, *korean_rule = [_stored_rule(r, labels, threshold, identity) for r in rules]
    return every.model_copy(
        update={
            "trained_on": trained_on,
            "rows": sum(kind_of(p.group) is None for p in pairs),
            "cross_validated": checked,
            "korean": korean_rule[0] if korean_rule else None,
        }
    )


def claim_auroc(pairs: Sequence[LabelledPair], probabilities: Sequence[float]) -> float | None:
    """AUROC of each claim's best pair probability against its label; None with one label."""
    import numpy as np
    from sklearn.metrics import roc_auc_score

    groups = [p.group for p in pairs]
    claim_label = {p.group: p.label for p in pairs}
    names, best = _group_max(np.asarray(probabilities, dtype=np.float64), groups)
    labels = [claim_label[g] for g in names]
    if len(set(labels)) < 2:
        return None
    return float(roc_auc_score(labels, best))
