"""One rule of a judge profile fitted: a logistic regression over the chosen signals, scaled
to unit variance, each signal's weight bounded by what the signal means (L-BFGS-B on the
L2-regularised log-loss). A signal of support (`SUPPORTING`) never gets a negative weight and a
signal against it (`OPPOSING`) never a positive one, so a fit cannot learn that, in one data
set, sharing words with the context marks an unsupported claim. A few signals' weights are set
by rule (`RULE_WEIGHTS`), not fitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...errors import DatasetError
from ...judging.profile import MIN_SCALE, MODEL_SIGNAL, OPPOSING, SUPPORTING

if TYPE_CHECKING:  # numpy and scipy load with a fit: applying a profile needs neither
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[np.float64]

# Weak L2 regularisation: a dozen signals, hundreds of rows.
REGULARISATION_C = 1.0
RULE_WEIGHTS: dict[str, float] = {"polarity": -4.0, "opposite": -4.0, "quantity_mismatch": -2.0}
"""Signals whose weight is set by rule, not fitted, in logits per unit of the signal: a
negation or an opposite word in a sentence that best matches the claim, and a quantity the
context states otherwise. Labelled sets rarely hold such pairs (on WiCE dev a flip fires on 3%
of pairs, mostly where a long claim says the same thing another way), so a fit cannot learn
what they mean: a flip in a sentence holding all of the claim's words takes 4 from the logit
(P 0.9 becomes 0.14), a contradicted quantity 2. The other weights are fitted beside them."""


class Logistic(NamedTuple):
    """A fitted logistic rule on standardised signals."""

    coef: Matrix
    intercept: float

    def decision(self, z: Matrix) -> Matrix:
        return z @ self.coef + self.intercept


class Fitted(NamedTuple):
    """A logistic rule with the standardisation it was fitted on."""

    mean: Matrix
    scale: Matrix
    model: Logistic


class Rule(NamedTuple):
    """The rows one rule decides, and its design: fitted signals' values, ruled ones' offset."""

    rows: NDArray[np.intp]
    fitted: list[str]
    ruled: list[str]
    x: Matrix
    offset: Matrix

    @classmethod
    def of(
        cls, rows: NDArray[np.intp], values: Sequence[dict[str, float]], signals: Sequence[str]
    ) -> Rule:
        """The rule over `signals` deciding `rows`, whose signal `values` the judge computed;
        the model's P(yes) enters as its logit."""
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
        return cls(rows, fitted, ruled, x, offset)


def _bounds(signals: Sequence[str]) -> list[tuple[float | None, float | None]]:
    """Each weight's bounds from its signal's meaning; the intercept last, free."""
    found: list[tuple[float | None, float | None]] = []
    for s in signals:
        found.append(
            (0.0, None) if s in SUPPORTING else (None, 0.0) if s in OPPOSING else (None, None)
        )
    return [*found, (None, None)]


def fit_logistic(
    x: Matrix, y: NDArray[np.bool_], signals: Sequence[str], made: NDArray[np.bool_]
) -> Fitted:
    """Standardise `x` and fit the sign-bounded logistic rule: the L2-regularised log-loss
    (`REGULARISATION_C`, intercept unpenalised), minimised by L-BFGS-B from zero.

    Rows `made` from the labelled claims (unrelated contexts, contradictions) shape the
    weights; the intercept is then fitted again on the labelled rows alone, so that the
    probabilities keep the labelled claims' own rate of support instead of the made
    negatives' (which would lower every probability, and a run's expected recall with it)."""
    import numpy as np

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < MIN_SCALE] = 1.0
    z = (x - mean) / scale
    t = y.astype(np.float64)
    weights, intercept = _weights(z, t, signals)
    labelled = ~made
    if made.any() and len(set(y[labelled].tolist())) == 2:
        intercept = _labelled_intercept(z[labelled] @ weights, t[labelled], intercept)
    return Fitted(mean, scale, Logistic(weights, intercept))


def _weights(z: Matrix, t: Matrix, signals: Sequence[str]) -> tuple[Matrix, float]:
    """The sign-bounded weights and the intercept minimising the regularised log-loss."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

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
    return theta[:-1], float(theta[-1])


def _labelled_intercept(fixed: Matrix, kept: Matrix, start: float) -> float:
    """The intercept fitted again, from `start`, with the weights' decisions `fixed`, on the
    labelled rows alone (`kept`: their labels)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    def intercept_loss(b: Matrix) -> tuple[float, Matrix]:
        m = fixed + b[0]
        return float(np.sum(np.logaddexp(0.0, m) - kept * m)), np.array(
            [float(np.sum(expit(m) - kept))]
        )

    again = minimize(intercept_loss, np.array([start]), jac=True, method="L-BFGS-B")
    return float(again.x[0])


def predict(x: Matrix, fitted: Fitted, offset: Matrix) -> Matrix:
    """Each row's probability under the `fitted` rule, the ruled signals' `offset` added."""
    import numpy as np

    z = fitted.model.decision((x - fitted.mean) / fitted.scale) + offset
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0))), dtype=np.float64)
