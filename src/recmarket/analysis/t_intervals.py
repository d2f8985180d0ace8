"""The t-distributions of the arms' means where a seed and domain hold a single unit
(``recmarket.analysis.bootstrap`` draws the statistic from them): stratified by domain, the
variance pooled within the domains (Cochran 1977, section 5.4); or, for one domain or a
measure pooled across domains, over the seeds' macro values."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

TDistribution = tuple[np.ndarray, np.ndarray, int]  # the arms' mean, its scale, df


def seed_t(seed_values: np.ndarray) -> TDistribution | None:
    """The arms' mean over S seeds' (macro) values: location their mean, scale their
    covariance over S, df S - 1 (None with fewer than two seeds)."""
    n = len(seed_values)
    if n < 2:
        return None
    scale = np.atleast_2d(np.cov(seed_values, rowvar=False)) / n
    return seed_values.mean(axis=0), scale, n - 1


def stratified_t(grid: np.ndarray) -> TDistribution | None:
    """The arms' macro mean from one value per (seed, domain) (``grid``: seeds x domains
    x arms, NaN where a unit has none): each domain's mean over its seeds, averaged over
    domains; the covariance pooled within domains, df the sum over domains of their seeds
    less one, and the macro mean's scale that covariance times the mean over domains of
    1 / seeds, over the number of domains (None without two seeds in some domain)."""
    means, residuals, inverse_counts = [], [], []
    for d in range(grid.shape[1]):
        values = grid[:, d][np.isfinite(grid[:, d]).all(axis=1)]
        if len(values) == 0:
            continue
        means.append(values.mean(axis=0))
        residuals.append(values - values.mean(axis=0))
        inverse_counts.append(1 / len(values))
    df = sum(len(r) - 1 for r in residuals)
    if df < 1:
        return None
    stacked = np.concatenate(residuals)
    pooled = stacked.T @ stacked / df
    scale = pooled * float(np.mean(inverse_counts)) / len(means)
    return np.mean(means, axis=0), np.atleast_2d(scale), df


def t_draws(
    mean: np.ndarray,
    scale: np.ndarray,
    df: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    draws: int,
    gen: np.random.Generator,
) -> np.ndarray:
    """The statistic of the arms' mean drawn from its multivariate t (location ``mean``,
    scale matrix ``scale``, ``df`` degrees of freedom)."""
    normal = gen.multivariate_normal(np.zeros(len(mean)), scale, size=draws, method="eigh")
    stretch = np.sqrt(df / gen.chisquare(df, size=draws))
    return statistic((mean + normal * stretch[:, None]).T)
