"""Bootstrap intervals for contrasts between treatment cells (Section 4.1, Appendix A.3).

Two designs, chosen by what the contrast involves:

- ``paired-request`` for contrasts among stateless cells (NoRep, Platform-Centric): the
  requests are resampled within each domain and the same resampled requests enter both
  arms, so the statistic is the mean of paired differences.
- ``cluster-user`` for contrasts involving reputation: outcomes depend on earlier rounds of
  the same simulated user, so the simulated users are resampled within each domain, each
  keeping their whole ordered history, and the same resampled users enter both arms.

Each draw computes every domain's estimate, then the macro estimate as their unweighted
mean; intervals are percentiles of the macro draws. Everything is vectorised over draws.
For outcomes with a handful of distinct values (the usual 0/1 differences), resampling n
requests is drawn as multinomial counts over those values, which has exactly the same
distribution and is far cheaper than drawing n indices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

DRAWS = 50_000
CHUNK = 2_000  # draws per block when resampling indices (bounds memory)
MAX_CATEGORIES = 16


@dataclass(frozen=True)
class Interval:
    estimate: float  # macro point estimate
    low: float
    high: float
    design: str
    draws: int
    per_domain: dict[str, float]

    def as_dict(self) -> dict[str, object]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "design": self.design,
            "draws": self.draws,
            "per_domain": self.per_domain,
        }


def _resampled_means(values: np.ndarray, draws: int, gen: np.random.Generator) -> np.ndarray:
    """Means of ``draws`` resamples (with replacement, same size) of ``values``."""
    n = len(values)
    levels, counts = np.unique(values, return_counts=True)
    if len(levels) <= MAX_CATEGORIES:
        picks = gen.multinomial(n, counts / n, size=draws)
        return picks @ levels / n
    out = np.empty(draws)
    for start in range(0, draws, CHUNK):
        size = min(CHUNK, draws - start)
        out[start : start + size] = values[gen.integers(0, n, size=(size, n))].mean(axis=1)
    return out


def _interval(
    draws_by_domain: dict[str, np.ndarray], estimates: dict[str, float], design: str, level: float
) -> Interval:
    macro = np.mean(np.stack(list(draws_by_domain.values())), axis=0)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(macro, [tail, 100 - tail])
    return Interval(
        float(np.mean(list(estimates.values()))),
        float(low),
        float(high),
        design,
        len(macro),
        estimates,
    )


def paired_request(
    differences: Mapping[str, np.ndarray], *, draws: int = DRAWS, seed: int = 0, level: float = 0.95
) -> Interval:
    """``differences[domain]``: per request, arm B minus arm A on the same request."""
    gen = np.random.default_rng(seed)
    per_draw, estimates = {}, {}
    for domain, d in differences.items():
        d = np.asarray(d, dtype=float)
        estimates[domain] = float(d.mean())
        per_draw[domain] = _resampled_means(d, draws, gen)
    return _interval(per_draw, estimates, "paired-request", level)


def cluster_user(
    sums: Mapping[str, np.ndarray],
    counts: Mapping[str, np.ndarray],
    *,
    draws: int = DRAWS,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """``sums[domain][u]``: user u's summed paired differences over their episodes;
    ``counts[domain][u]``: how many episodes. A draw's domain estimate is the pooled mean
    over the resampled users."""
    gen = np.random.default_rng(seed)
    per_draw, estimates = {}, {}
    for domain, s in sums.items():
        s, c = np.asarray(s, dtype=float), np.asarray(counts[domain], dtype=float)
        estimates[domain] = float(s.sum() / c.sum())
        picks = gen.integers(0, len(s), size=(draws, len(s)))
        per_draw[domain] = s[picks].sum(axis=1) / c[picks].sum(axis=1)
    return _interval(per_draw, estimates, "cluster-user", level)
