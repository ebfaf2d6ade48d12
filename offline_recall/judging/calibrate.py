"""Fitting a judge profile on labelled (claim, context, label) rows, cross-validated.

A logistic regression over the chosen signals, scaled to unit variance, each signal's weight
bounded by what the signal means (L-BFGS-B on the L2-regularised log-loss): a signal of
support (`SUPPORTING`) never gets a negative weight and a signal against it (`OPPOSING`) never
a positive one, so a fit cannot learn that, in one data set, sharing words with the context
marks an unsupported claim. The numbers reported
come from k-fold cross-validation grouped by claim: each fold's rule, and its threshold, are
fitted without the fold's rows. The stored rule is then fitted on all rows, with the
threshold that maximises balanced accuracy over the out-of-fold probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..errors import DatasetError
from .korean import has_hangul
from .labelled import LabelledPair
from .negatives import kind_of
from .profile import (
    MIN_SCALE,
    MODEL_SIGNAL,
    OPPOSING,
    RECALL,
    SUPPORTING,
    CrossValidated,
    JudgeProfile,
)
from .signals import LEXICAL_SIGNALS, word_overlap

if TYPE_CHECKING:  # numpy and scipy load with a fit: applying a profile needs neither
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
# Weak L2 regularisation: a dozen signals, hundreds of rows.
REGULARISATION_C = 1.0
RULE_WEIGHTS: dict[str, float] = {"polarity": -4.0, "opposite": -4.0, "quantity_mismatch": -2.0}
"""Signals whose weight is set by rule, not fitted, in logits per unit of the signal: a
negation or an opposite word in a sentence that best matches the claim, and a quantity the
context states otherwise. Labelled sets rarely hold such pairs (on WiCE dev a flip fires on 3%
of pairs, mostly where a long claim says the same thing another way), so a fit cannot learn
what they mean: a flip in a sentence holding all of the claim's words takes 4 from the logit
(P 0.9 becomes 0.14), a contradicted quantity 2. The other weights are fitted beside them."""


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


class _Logistic(NamedTuple):
    """A fitted logistic rule on standardised signals."""

    coef: Matrix
    intercept: float

    def decision(self, z: Matrix) -> Matrix:
        return z @ self.coef + self.intercept


def _bounds(signals: Sequence[str]) -> list[tuple[float | None, float | None]]:
    """Each weight's bounds from its signal's meaning; the intercept last, free."""
    found: list[tuple[float | None, float | None]] = []
    for s in signals:
        found.append(
            (0.0, None) if s in SUPPORTING else (None, 0.0) if s in OPPOSING else (None, None)
        )
    return [*found, (None, None)]


def _fit(
    x: Matrix, y: NDArray[np.bool_], signals: Sequence[str], made: NDArray[np.bool_]
) -> tuple[Matrix, Matrix, _Logistic]:
    """Standardise `x` and fit the sign-bounded logistic rule: the L2-regularised log-loss
    (`REGULARISATION_C`, intercept unpenalised), minimised by L-BFGS-B from zero.

    Rows `made` from the labelled claims (unrelated contexts, contradictions) shape the
    weights; the intercept is then fitted again on the labelled rows alone, so that the
    probabilities keep the labelled claims' own rate of support instead of the made
    negatives' (which would lower every probability, and a run's expected recall with it)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < MIN_SCALE] = 1.0
    z = (x - mean) / scale
    t = y.astype(np.float64)

    def loss(theta: Matrix) -> tuple[float, Matrix]:
        w, b = theta[:-1], theta[-1]
        m = z @ w + b
        error = expit(m) - t
        value = float(np.sum(np.logaddexp(0.0, m) - t * m) + 0.5 * (w @ w) / REGULARISATION_C)
        return value, np.append(z.T @ error + w / REGULARISATION_C, error.sum())

    found = minimize(
        loss,
        np.zeros(z.shape[1] + 1),
        jac=True,
        method="L-BFGS-B",
        bounds=_bounds(signals),
        options={"maxiter": 2000},
    )
    theta = np.asarray(found.x, dtype=np.float64)
    weights, intercept = theta[:-1], float(theta[-1])
    labelled = ~made
    if made.any() and len(set(y[labelled].tolist())) == 2:
        fixed = z[labelled] @ weights
        kept = t[labelled]

        def intercept_loss(b: Matrix) -> tuple[float, Matrix]:
            m = fixed + b[0]
            return float(np.sum(np.logaddexp(0.0, m) - kept * m)), np.array(
                [float(np.sum(expit(m) - kept))]
            )

        again = minimize(intercept_loss, np.array([intercept]), jac=True, method="L-BFGS-B")
        intercept = float(again.x[0])
    return mean, scale, _Logistic(weights, intercept)


def _predict(x: Matrix, mean: Matrix, scale: Matrix, model: _Logistic, offset: Matrix) -> Matrix:
    import numpy as np

    z = model.decision((x - mean) / scale) + offset
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0))), dtype=np.float64)


class _Rule(NamedTuple):
    """The rows one rule decides, and its design: fitted signals' values, ruled ones' offset."""

    rows: NDArray[np.intp]
    fitted: list[str]
    ruled: list[str]
    x: Matrix
    offset: Matrix


def _rule(
    rows: NDArray[np.intp], values: Sequence[dict[str, float]], signals: Sequence[str]
) -> _Rule:
    import numpy as np

    ruled = [s for s in signals if s in RULE_WEIGHTS]
    fitted = [s for s in signals if s not in RULE_WEIGHTS]
    if not fitted:
        raise DatasetError(f"no signal to fit: {', '.join(ruled)} are set by rule")
    chosen = [values[i] for i in rows]
    offset = np.array([sum(RULE_WEIGHTS[s] * v[s] for s in ruled) for v in chosen])
    x = np.array([[v[s] for s in fitted] for v in chosen], dtype=np.float64).reshape(
        len(chosen), len(fitted)
    )
    if MODEL_SIGNAL in fitted:
        col = fitted.index(MODEL_SIGNAL)
        p = np.clip(x[:, col], 1e-6, 1 - 1e-6)
        x[:, col] = np.log(p / (1 - p))
    return _Rule(rows, fitted, ruled, x, offset)


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
    import numpy as np
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score
    from sklearn.model_selection import GroupKFold

    groups = [p.group for p in pairs]
    y_pair = np.array([p.label for p in pairs], dtype=bool)
    made = np.array([kind_of(g) is not None for g in groups], dtype=bool)
    claim_label = {p.group: p.label for p in pairs}
    names = [g for g in dict.fromkeys(groups) if kind_of(g) is None]
    y_claim = np.array([claim_label[g] for g in names], dtype=bool)
    if len(set(y_claim.tolist())) < 2:
        raise DatasetError("calibration needs both supported and unsupported claims")
    folds = min(folds, len(names), int(min(y_claim.sum(), (~y_claim).sum())))
    if folds < 2:
        raise DatasetError("calibration needs at least two claims of each label")

    korean = np.array(
        [korean_signals is not None and has_hangul(str(p.claim)) for p in pairs], dtype=bool
    )
    rules = [_rule(np.flatnonzero(~korean), values, signals)]
    if korean_signals is not None:
        if korean.all() or not korean.any():
            raise DatasetError("a Korean rule needs claims in Korean and claims in other languages")
        rules.append(_rule(np.flatnonzero(korean), values, korean_signals))

    def predicted(train: NDArray[np.bool_]) -> Matrix:
        """Every row's probability under the rules fitted on the `train` rows."""
        found = np.zeros(len(pairs))
        for rule in rules:
            inside = train[rule.rows]
            if len(set(y_pair[rule.rows][inside].tolist())) < 2:
                raise DatasetError("each rule needs claims of both labels in every fold")
            mean, scale, model = _fit(
                rule.x[inside], y_pair[rule.rows][inside], rule.fitted, made[rule.rows][inside]
            )
            found[rule.rows] = _predict(rule.x, mean, scale, model, rule.offset)
        return found

    out_of_fold = np.zeros(len(pairs))
    fold_decisions: dict[str, bool] = {}
    fold_aurocs: list[float] = []
    for train, test in GroupKFold(n_splits=folds).split(y_pair, y_pair, groups):
        in_train = np.zeros(len(pairs), dtype=bool)
        in_train[train] = True
        fold = predicted(in_train)
        out_of_fold[test] = fold[test]
        train_names, train_best = _labelled(*_group_max(fold[train], [groups[i] for i in train]))
        cut = best_threshold([claim_label[g] for g in train_names], train_best)
        test_names, test_best = _labelled(*_group_max(out_of_fold[test], [groups[i] for i in test]))
        fold_decisions.update(zip(test_names, (test_best >= cut).tolist(), strict=True))
        test_labels = [claim_label[g] for g in test_names]
        if len(set(test_labels)) == 2:
            fold_aurocs.append(float(roc_auc_score(test_labels, test_best)))

    _, claim_scores = _labelled(*_group_max(out_of_fold, groups))
    overlap = np.array([word_overlap(p.context, str(p.claim)) for p in pairs])
    _, claim_overlap = _labelled(*_group_max(overlap, groups))
    overlap_cut = best_threshold(y_claim, claim_overlap)
    checked = CrossValidated(
        folds=folds,
        auroc=float(roc_auc_score(y_claim, claim_scores)),
        balanced_accuracy=float(
            balanced_accuracy_score(y_claim, [fold_decisions[g] for g in names])
        ),
        baseline_auroc=float(roc_auc_score(y_claim, claim_overlap)),
        baseline_balanced_accuracy=float(
            balanced_accuracy_score(y_claim, claim_overlap >= overlap_cut)
        ),
        fold_aurocs=tuple(fold_aurocs),
        claims=len(names),
    )

    threshold = best_threshold(y_claim, claim_scores)
    fitted_rules = []
    for rule in rules:
        mean, scale, model = _fit(rule.x, y_pair[rule.rows], rule.fitted, made[rule.rows])
        fitted_rules.append(
            JudgeProfile(
                scorer=scorer,
                model_fingerprint=fingerprint,
                prompt_version=prompt_version,
                signals=(*rule.fitted, *rule.ruled),
                means=(*(float(m) for m in mean), *(0.0 for _ in rule.ruled)),
                scales=(*(float(s) for s in scale), *(1.0 for _ in rule.ruled)),
                weights=(
                    *(float(w) for w in model.coef),
                    *(RULE_WEIGHTS[s] for s in rule.ruled),
                ),
                bias=model.intercept,
                threshold=threshold,
                evidence_sentences=evidence_sentences,
                rows=len(rule.rows),
                seed=seed,
            )
        )
    every, *korean_rule = fitted_rules
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
