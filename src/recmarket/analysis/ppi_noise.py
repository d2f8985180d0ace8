"""The draw noise an interval for a backend's expected behaviour adds.

A pilot backend that draws (a model at temperature > 0, the offline rules) plays each unit
once; its value on this market's units, realised, is one play of every unit. The rescaled
bootstrap covers that value: its finite-population factor sqrt(1 - n / N) takes away what a
pilot of every unit would know. What the backend *does* is its value over its own draws,
and the draw noise of the N units it never played twice does not go away with n. For a sum
over n pilot units of per-unit variance S^2 (spread between units plus draw noise sigma^2),
the error against the expected value has variance

    (1 - f) n S^2 + f n sigma^2,    f = n / N,

so the noise the finite-population factor removed is added back: each draw of a stratum's
pilot sums gains sqrt(f) times a sum of n draw deviations, resampled from the noise replays
(a share of the pilot's units played again with fresh role draws). A unit's K plays give K
deviations from their mean, each rescaled by sqrt(K / (K - 1)) so that its variance is
sigma^2; the deviations of every stratum are one pool (the draw noise is taken as common to
the strata, which few noise units could not tell apart).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from recmarket.analysis.ppi_strata import Stratum
from recmarket.resampling import categories, sums


def deviations(noise: dict[Stratum, np.ndarray], domains: Sequence[str]) -> np.ndarray:
    """Every noise unit's plays as deviations from the unit's mean, rescaled to the draw
    noise's variance, each under its own domain as the pilot's sums are laid out:
    (deviations, domains, arms, parts)."""
    found = []
    for stratum, plays in noise.items():  # plays: (units, K, arms, parts)
        k = plays.shape[1]
        if k < 2:
            continue
        spread = (plays - plays.mean(axis=1, keepdims=True)) * np.sqrt(k / (k - 1))
        flat = spread.reshape(-1, *plays.shape[2:])
        placed = np.zeros((len(flat), len(domains), *plays.shape[2:]))
        placed[:, domains.index(stratum[1])] = flat
        found.append(placed)
    return np.concatenate(found) if found else np.zeros((0, len(domains)))


def noise_draws(
    pool: np.ndarray, n: int, everyone: int, draws: int, gen: np.random.Generator
) -> np.ndarray:
    """Per draw, sqrt(n / N) times the sum of n deviations resampled from ``pool``: the draw
    noise of a stratum of n pilot units among N that its rescaled draws left out."""
    levels, counts = categories(pool)
    picked = gen.multinomial(n, counts / counts.sum(), size=draws)
    return np.sqrt(n / everyone) * sums(levels, picked, pool.shape[1:])


def value_noise(noise: dict[Stratum, np.ndarray], value: Callable[[np.ndarray], float]) -> float:
    """The draw noise's variance of a whole unit's value (a seed and domain as the unit):
    the mean over noise units of the variance of ``value`` over the unit's plays."""
    spread = [
        float(np.var([value(play) for play in unit], ddof=1))
        for plays in noise.values()
        for unit in plays
        if len(unit) >= 2
    ]
    return float(np.mean(spread)) if spread else 0.0
