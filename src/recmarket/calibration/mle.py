"""Maximum likelihood with bounds, and standard errors from the observed information.

Each model hands over a negative log-likelihood of its free parameters, their bounds and
starting values; scipy's L-BFGS-B finds the optimum, and the inverse of a central-difference
Hessian there gives the covariance (a parameter that ends on a bound has no reliable
standard error and is flagged instead).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.optimize import minimize


@dataclass(frozen=True)
class Estimate:
    """One parameter's estimate, its standard error where finite, whether the data could
    move it and whether it was fitted."""

    name: str
    value: float
    se: float | None  # None where the optimum sits on a bound or the information is singular
    # Identified: fitted by a fit that converged, with a finite likelihood and a finite
    # standard error. A parameter can be fitted and not identified (an optimum on a bound);
    # one that is not fitted stays at its prior value: the data cannot tell.
    identified: bool = True
    fitted: bool = True


@dataclass(frozen=True)
class Fitted:
    """A maximum-likelihood fit: every estimate, the log-likelihood against the null
    model's, and the observations behind it."""

    estimates: tuple[Estimate, ...]
    log_likelihood: float
    null_log_likelihood: float
    observations: int
    converged: bool

    def value(self, name: str) -> float:
        """The estimate of the parameter ``name``."""
        return next(e.value for e in self.estimates if e.name == name)

    @property
    def pseudo_r2(self) -> float:
        """McFadden's: the share of the null model's log-likelihood the fit explains."""
        if self.null_log_likelihood == 0:
            return float("nan")
        return 1.0 - self.log_likelihood / self.null_log_likelihood


def hessian(f: Callable[[np.ndarray], float], x: np.ndarray, step: float = 1e-4) -> np.ndarray:
    """Central-difference Hessian of ``f`` at ``x`` (steps relative to each coordinate)."""
    n = len(x)
    h = step * np.maximum(np.abs(x), 1.0)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            ei, ej = np.zeros(n), np.zeros(n)
            ei[i], ej[j] = h[i], h[j]
            value = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (
                4 * h[i] * h[j]
            )
            out[i, j] = out[j, i] = value
    return out


def maximise(
    negative_log_likelihood: Callable[[np.ndarray], float],
    names: Sequence[str],
    start: Sequence[float],
    bounds: Sequence[tuple[float | None, float | None]],
) -> tuple[np.ndarray, list[float | None], bool]:
    """The maximum-likelihood values of the free parameters, their standard errors, and
    whether the optimiser converged."""
    x0 = np.array(start, dtype=float)
    if not len(names):
        return x0, [], True
    result = minimize(negative_log_likelihood, x0, method="L-BFGS-B", bounds=list(bounds))
    x = result.x
    on_bound = [
        (low is not None and abs(v - low) < 1e-6) or (high is not None and abs(v - high) < 1e-6)
        for v, (low, high) in zip(x, bounds, strict=True)
    ]
    inner = [i for i, b in enumerate(on_bound) if not b]
    ses: list[float | None] = [None] * len(x)
    if inner:

        def restricted(y: np.ndarray) -> float:
            z = x.copy()
            z[inner] = y
            return negative_log_likelihood(z)

        try:
            covariance = np.linalg.inv(hessian(restricted, x[inner]))
            for k, i in enumerate(inner):
                variance = covariance[k, k]
                ses[i] = float(np.sqrt(variance)) if variance > 0 else None
        except np.linalg.LinAlgError:
            pass
    return x, ses, bool(result.success)


class Likelihood(Protocol):
    """A model's data, able to say how likely it is under named parameter values."""

    def log_likelihood(self, values: dict[str, float]) -> float:
        """The observations' log-likelihood at these parameter values."""
        ...

    def null_log_likelihood(self) -> float:
        """The log-likelihood of the null model: every alternative equally likely."""
        ...

    def identified(self) -> dict[str, bool]:
        """Per parameter, whether the observations can move its likelihood at all (a
        parameter that multiplies only zeros cannot be estimated)."""
        ...


def fit_parameters(
    data: Likelihood,
    observations: int,
    names: Sequence[str],
    prior: dict[str, float],
    bounds: Mapping[str, tuple[float | None, float | None]],
) -> Fitted:
    """Maximise the likelihood of ``data`` over the identified parameters among ``names``,
    holding the others at their ``prior`` values (started from the prior, within bounds)."""
    identified = data.identified()
    free = [n for n in names if identified[n]]

    def negative(x: np.ndarray) -> float:
        return -data.log_likelihood({**prior, **dict(zip(free, x, strict=True))})

    def inside(name: str) -> float:
        low, high = bounds[name]
        value = prior[name] if low is None else max(prior[name], low)
        return value if high is None else min(value, high)

    start = [inside(n) for n in free]
    x, ses, converged = maximise(negative, free, start, [bounds[n] for n in free])
    found = {**prior, **dict(zip(free, x, strict=True))}
    se_of = dict(zip(free, ses, strict=True))
    log_likelihood = data.log_likelihood(found)
    sound = converged and math.isfinite(log_likelihood)

    def estimate(name: str) -> Estimate:
        se = se_of.get(name)
        sure = sound and se is not None and math.isfinite(se)
        return Estimate(name, float(found[name]), se, identified=sure, fitted=name in se_of)

    return Fitted(
        tuple(estimate(n) for n in names),
        log_likelihood,
        data.null_log_likelihood(),
        observations,
        converged,
    )
