"""Bootstrap intervals over clusters and seeds (Section 4.1, Appendix A.3, and replicates).

The paper's design, per domain: requests are resampled for contrasts among stateless cells
(``paired-request``), simulated users (each with their whole ordered history) for contrasts
that involve reputation (``cluster-user``), and the same resampled units enter every arm.
The macro estimate is the unweighted mean of the domain estimates, computed inside each draw.

A cell run at several seeds adds a level above that: each seed is an independent market
(its own catalogs, draws and request sample), and the paper's intervals condition on one.
So the resampling has two stages (Davison and Hinkley 1997, section 3.8): each draw picks
the seeds with replacement, then resamples the clusters within each picked seed and domain.
An interval then reflects both how much a result moves from seed to seed and how much it
rests on a few users; with one seed it is the paper's design exactly.

Every value is a ratio of per-episode sums (a rate is hits over episodes, a share is hits
over the episodes it is taken among), so resampling only has to count how often each
cluster is drawn. Clusters with identical sums are one category: picking n clusters
``m`` times over is one multinomial draw of ``m n`` over the categories, which is exact and
makes 50,000 draws of a 0/1 contrast cheap.
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

DRAWS = 50_000
CHUNK = 5_000  # draws per block (bounds memory when clusters are many and distinct)
Row = Mapping[str, Any]  # an episode row: a dict, or the report's CompactRow


@dataclass(frozen=True)
class Interval:
    estimate: float  # macro point estimate
    low: float
    high: float
    design: str
    draws: int
    per_domain: dict[str, float]
    seeds: int = 1  # independent replicates behind the estimate

    def excludes(self, value: float) -> bool:
        return not self.low <= value <= self.high

    def as_dict(self) -> dict[str, object]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "design": self.design,
            "draws": self.draws,
            "per_domain": self.per_domain,
            "seeds": self.seeds,
        }


@dataclass(frozen=True)
class Metric:
    """A value computed from sums of per-episode parts: ``parts(row)`` gives a row's
    contribution (a rate: [hit, 1]; a share: [hit, counted]) and ``finish`` turns summed
    parts (last axis) into the value, vectorised over leading axes. ``pooled`` sums across
    domains before finishing (Fig. 11's label shares); otherwise each domain is finished
    and the macro value is the unweighted mean of the domains that have one."""

    parts: Callable[[Row], Sequence[float]]
    finish: Callable[[np.ndarray], np.ndarray]
    pooled: bool = False


def ratio(sums: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """First part over second (NaN where nothing was counted)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return scale * sums[..., 0] / sums[..., 1]


def mean_of(value: Callable[[Row], float], scale: float = 1.0) -> Metric:
    """The mean of a per-episode value, times ``scale``."""
    return Metric(lambda r: (float(value(r)), 1.0), lambda s: ratio(s, scale))


# Resampling units, finest first; each is nested in the next (a user has one profile).
CLUSTERS: dict[str, Callable[[Row], Hashable]] = {
    "request": lambda r: r["ord"],
    "user": lambda r: r["sim_user"],
    "profile": lambda r: r["profile"],
    "domain": lambda r: 0,
}


def coarsest(levels: Sequence[str]) -> str:
    """The unit every arm's dependence is nested in."""
    order = list(CLUSTERS)
    return max(levels, key=order.index)


def _episode(row: Row) -> tuple[Any, ...]:
    return row.get("replicate"), row["domain"], row["ord"], row["episode_id"]


def _check_same_episodes(arms: Sequence[Sequence[Row]]) -> None:
    first = {_episode(r) for r in arms[0]}
    for rows in arms[1:]:
        if {_episode(r) for r in rows} != first or len(rows) != len(arms[0]):
            raise ValueError(
                "the cells do not share episodes (different seeds, domains or request "
                "counts), so they cannot be compared unit by unit"
            )


def _strata(
    arms: Sequence[Sequence[Row]], metric: Metric, cluster: str
) -> dict[tuple[Any, str], np.ndarray]:
    """(replicate, domain) -> each cluster's summed parts, shape (clusters, arms, parts)."""
    key = CLUSTERS[cluster]
    sums: dict[tuple[Any, str], dict[Hashable, np.ndarray]] = defaultdict(dict)
    for a, rows in enumerate(arms):
        for r in rows:
            stratum, unit = sums[(r.get("replicate"), r["domain"])], key(r)
            parts = np.asarray(metric.parts(r), dtype=float)
            if unit not in stratum:
                stratum[unit] = np.zeros((len(arms), len(parts)))
            stratum[unit][a] += parts
    return {s: np.stack([units[u] for u in sorted(units, key=str)]) for s, units in sums.items()}


def _values(by_domain: dict[str, np.ndarray], metric: Metric) -> np.ndarray:
    """Per-arm values from per-domain sums (each (..., arms, parts)): shape (..., arms)."""
    if metric.pooled:
        return metric.finish(functools.reduce(np.add, by_domain.values()))
    finished = np.stack([metric.finish(s) for s in by_domain.values()])
    with warnings.catch_warnings():  # a domain where nobody was counted is left out
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(finished, axis=0)


def point(rows: Sequence[Row], metric: Metric) -> float:
    """One cell's value of the metric, without an interval."""
    by_domain: dict[str, np.ndarray] = {}
    for r in rows:
        parts = np.asarray(metric.parts(r), dtype=float)
        by_domain[r["domain"]] = by_domain.get(r["domain"], 0) + parts
    if not by_domain:
        return float("nan")
    return float(_values({d: s[None] for d, s in by_domain.items()}, metric)[0])


def interval(
    arms: Sequence[Sequence[Row]],
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    cluster: str,
    *,
    draws: int = DRAWS,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """The ``statistic`` of the arms' values (arms on the first axis: one arm for a level,
    two for a difference, more for a spread) with a percentile interval from the two-stage
    bootstrap: seeds (the rows' ``replicate``) with replacement, then ``cluster`` units
    within each picked seed and domain, the same units in every arm."""
    _check_same_episodes(arms)
    strata = _strata(arms, metric, cluster)
    replicates = sorted({r for r, _ in strata}, key=str)
    domains = sorted({d for _, d in strata})
    totals = {d: sum(s.sum(axis=0) for (_, dd), s in strata.items() if dd == d) for d in domains}
    per_domain_values = {d: metric.finish(t) for d, t in totals.items()}
    estimate = float(statistic(_values(totals, metric)))
    gen = np.random.default_rng(seed)
    categories = {
        s: np.unique(u.reshape(len(u), -1), axis=0, return_counts=True) for s, u in strata.items()
    }
    out = np.empty(draws)
    for start in range(0, draws, CHUNK):
        size = min(CHUNK, draws - start)
        picks = gen.multinomial(len(replicates), [1 / len(replicates)] * len(replicates), size)
        sums = {d: np.zeros((size, *totals[d].shape)) for d in domains}
        for (replicate, domain), (levels, counts) in categories.items():
            times = picks[:, replicates.index(replicate)] * counts.sum()
            drawn = gen.multinomial(times, counts / counts.sum())
            sums[domain] += (drawn @ levels).reshape(size, *totals[domain].shape)
        out[start : start + size] = statistic(np.moveaxis(_values(sums, metric), -1, 0))
    tail = (1 - level) / 2 * 100
    finite = out[np.isfinite(out)]  # a draw with nobody counted (or a zero base) has no value
    low, high = np.percentile(finite, [tail, 100 - tail]) if len(finite) else (np.nan, np.nan)
    design = {"request": "paired-request"}.get(cluster, f"cluster-{cluster}")
    if len(replicates) > 1:
        design += f" x {len(replicates)} seeds"
    return Interval(
        estimate,
        float(low),
        float(high),
        design,
        draws,
        {d: float(statistic(v)) for d, v in per_domain_values.items()},
        len(replicates),
    )


def level_of(values: np.ndarray) -> np.ndarray:
    return values[0]


def difference(values: np.ndarray) -> np.ndarray:
    """Second arm minus the first."""
    return values[1] - values[0]


def quotient(values: np.ndarray) -> np.ndarray:
    """Second arm over the first."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return values[1] / values[0]


def spread(values: np.ndarray) -> np.ndarray:
    """Largest minus smallest over the arms."""
    return np.max(values, axis=0) - np.min(values, axis=0)
