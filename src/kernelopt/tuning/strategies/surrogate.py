"""A cheap learned filter: which untimed configurations look worth timing (pure; numpy, imported lazily).

A Gaussian process over the configurations timed so far, on the knobs' step positions (one step of any
knob, a doubling or one more stage, is one unit), predicting log latency. It ranks candidates by expected
improvement over the best so far: promising and uncertain ones first. This is the role of Helion's LFBO
classifier (a model of good and bad configurations that chooses which neighbours to time), with a model
that needs no training library: a few dozen points, one Cholesky factorization per fit.

Hyperparameters are not tuned on the recorded sweeps: the length scale (in steps) is chosen per fit by
the marginal likelihood over :data:`LENGTH_SCALES`; the noise is :data:`NOISE` of the normalized variance.
Failed candidates are not in the model (the fit rule keeps most failures from being proposed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: Candidate length scales, in knob steps (the marginal likelihood picks one per fit).
LENGTH_SCALES = (0.7, 1.0, 1.5, 2.2, 3.3)
#: Observation noise, as a fraction of the normalized signal variance (timing noise, ~1 %).
NOISE = 1e-3
#: Fewest timed configurations before the model is trusted (below it, the caller's own order stands).
MIN_POINTS = 4


class Surrogate:
    """A Gaussian process fitted to (step positions, log latency) pairs."""

    def __init__(
        self, points: Sequence[Sequence[float]], latencies_us: Sequence[float], *, length: float | None = None
    ) -> None:
        """Fit the model; ``length`` fixes the length scale (``None``: the likeliest of :data:`LENGTH_SCALES`)."""
        import numpy as np

        self._np = np
        x = np.asarray(points, dtype=float)
        y = np.log(np.asarray(latencies_us, dtype=float))
        self.best_y = float(y.min())
        self._mean, self._scale = float(y.mean()), float(y.std()) or 1.0
        self._x = x
        z = (y - self._mean) / self._scale
        self.length, self._chol_inv, self._alpha = _fit(np, x, z, (length,) if length else LENGTH_SCALES)

    @classmethod
    def maybe(
        cls, points: Sequence[Sequence[float]], latencies_us: Sequence[float], *, length: float | None = None
    ) -> Surrogate | None:
        """The model, or ``None`` with fewer than :data:`MIN_POINTS` timed configurations."""
        return cls(points, latencies_us, length=length) if len(points) >= MIN_POINTS else None

    def predict(self, points: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of the normalized log latency at ``points``."""
        np = self._np
        xs = np.asarray(points, dtype=float)
        k = _kernel(np, xs, self._x, self.length)
        mu = k @ self._alpha
        v = self._chol_inv @ k.T
        var = np.maximum(1.0 + NOISE - np.sum(v * v, axis=0), 1e-12)
        return mu, np.sqrt(var)

    def expected_improvement(self, points: Sequence[Sequence[float]]) -> list[float]:
        """Expected improvement of each point over the best timed one (larger: more worth timing)."""
        if not points:
            return []
        np = self._np
        mu, sd = self.predict(points)
        best = (self.best_y - self._mean) / self._scale
        u = (best - mu) / sd
        cdf = 0.5 * (1.0 + _erf(np, u / math.sqrt(2.0)))
        pdf = np.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi)
        return [float(v) for v in sd * (u * cdf + pdf)]

    def mean_latency_us(self, points: Sequence[Sequence[float]]) -> list[float]:
        """The predicted latency of each point, microseconds."""
        mu, _ = self.predict(points)
        return [math.exp(self._mean + self._scale * float(m)) for m in mu]


def _kernel(np: Any, a: np.ndarray, b: np.ndarray, length: float) -> np.ndarray:
    d2 = np.sum(a * a, axis=1)[:, None] + np.sum(b * b, axis=1)[None, :] - 2.0 * a @ b.T
    return np.exp(-0.5 * np.maximum(d2, 0.0) / (length * length))


def _fit(np: Any, x: np.ndarray, z: np.ndarray, lengths: Sequence[float]) -> tuple[float, np.ndarray, np.ndarray]:
    """The length scale of ``lengths`` of highest marginal likelihood, the inverse of the kernel matrix's
    Cholesky factor, and the weights ``K^-1 z``."""
    best: tuple[float, float, np.ndarray, np.ndarray] | None = None
    eye = np.eye(len(x))
    for length in lengths:
        try:
            chol_inv = np.linalg.inv(np.linalg.cholesky(_kernel(np, x, x, length) + NOISE * eye))
        except np.linalg.LinAlgError:
            continue
        w = chol_inv @ z
        loglik = -0.5 * float(w @ w) + float(np.sum(np.log(np.abs(np.diag(chol_inv)))))
        if best is None or loglik > best[0]:
            best = (loglik, length, chol_inv, chol_inv.T @ w)
    if best is None:  # numerically singular at every scale: a strong nugget
        chol_inv = np.linalg.inv(np.linalg.cholesky(_kernel(np, x, x, lengths[0]) + 1e-2 * eye))
        return lengths[0], chol_inv, chol_inv.T @ (chol_inv @ z)
    return best[1], best[2], best[3]


def _erf(np: Any, x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7), elementwise."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))
