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

Where a (seed, domain) stratum holds a single cluster (one history shared by a domain, a
market whose platforms learn from every stream) there is nothing to resample within it,
and the percentile interval of three redrawn seed values is merely their smallest and
largest, which covers the median of three draws 75% of the time. Such an interval is
instead a t-interval, stratified by domain: each domain's (seed) values vary around that
domain's own mean, so the variance is pooled within domains, with D x (S - 1) degrees of
freedom, and the macro mean's scale is that variance over the D x S units (Cochran 1977,
section 5.4). The arms' means are drawn from the multivariate t that is their posterior
under a flat prior, which for a level or a difference is exactly Student's t-interval and
gives a spread its noise bias by the same draws. A t over the S seeds' macro values alone
(S - 1 degrees of freedom) throws the domain strata away: it is kept only where there is
one domain, or where a pooled measure has no value per domain. With one seed and one
cluster there is no interval at all.

Every value is a ratio of per-episode sums (a rate is hits over episodes, a share is hits
over the episodes it is taken among), so resampling only has to count how often each
cluster is drawn. Clusters with identical sums are one category: picking n clusters
``m`` times over is one multinomial draw of ``m n`` over the categories, which is exact and
makes 50,000 draws of a 0/1 contrast cheap.

Each pick of a stratum of n clusters draws n - 1 of them (Davison and Hinkley 1997,
section 3.7, after McCarthy and Snowden 1985): the plain bootstrap's variance is that of n
draws from the sample, short of the sampling variance by (n - 1) / n, which for the twelve
users of a Local-12 domain makes a nominal 95% interval cover 92.6% (the coverage test).
Every value is a ratio, so a draw of n - 1 clusters needs no rescaling.
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recmarket.analysis.t_intervals import seed_t, stratified_t, t_draws
from recmarket.experiments.units import CLUSTERS
from recmarket.resampling import percentile, resampled, sums

DRAWS = 50_000
Row = Mapping[str, Any]  # an episode row: a dict, or the report's CompactRow


@dataclass(frozen=True)
class Interval:
    """A macro estimate with its 95% interval and how it was made: the design, the draws,
    the seeds (and a t-interval's degrees of freedom), each domain's estimate and the
    draws' bias."""

    estimate: float  # macro point estimate
    low: float
    high: float
    design: str
    draws: int
    per_domain: dict[str, float]
    seeds: int = 1  # independent replicates behind the estimate
    df: int | None = None  # degrees of freedom of a t-interval over seeds
    bias: float = 0.0  # the draws' mean minus the estimate (a spread's noise bias)
    strata: int = 0  # domains a t-interval's variance was pooled within (0: not stratified)

    @property
    def method(self) -> str:
        """How the interval was made, in words a table can carry."""
        if np.isnan(self.low):
            return f"no interval ({self.design}: one cluster, one seed)"
        if self.df is not None and self.strata:
            return (
                f"domain-stratified t, {self.strata} domains x {self.seeds} seeds, "
                f"df {self.df} ({self.design})"
            )
        if self.df is not None:
            return f"t over {self.seeds} seeds, df {self.df} ({self.design})"
        return f"percentile bootstrap ({self.design}), {self.draws} draws"

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the interval."""
        return not self.low <= value <= self.high


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


def scaled(metric: Metric, factor: float) -> Metric:
    """``metric`` with its value times ``factor`` (a fraction as a percent, or back)."""
    return Metric(metric.parts, lambda s: factor * metric.finish(s), metric.pooled)


def mean_of(value: Callable[[Row], float], scale: float = 1.0) -> Metric:
    """The mean of a per-episode value, times ``scale``."""
    return Metric(lambda r: (float(value(r)), 1.0), lambda s: ratio(s, scale))


def _episode(row: Row) -> tuple[Any, ...]:
    return row.get("replicate"), row["domain"], row["ord"], row["episode_id"]


class UnpairedCells(ValueError):
    """Cells compared episode by episode that do not hold the same episodes."""


def _check_same_episodes(arms: Sequence[Sequence[Row]]) -> None:
    first = {_episode(r) for r in arms[0]}
    for rows in arms[1:]:
        if {_episode(r) for r in rows} != first or len(rows) != len(arms[0]):
            raise UnpairedCells(
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
    two for a difference, more for a spread) with a 95% interval: the two-stage bootstrap
    (seeds, the rows' ``replicate``, with replacement, then ``cluster`` units within each
    picked seed and domain, the same units in every arm) where every stratum has units to
    resample, and a t-interval over seeds where some stratum has only one."""
    _check_same_episodes(arms)
    drawn = _drawn(arms, metric, statistic, cluster, draws, np.random.default_rng(seed))
    return drawn.interval(level)


def unpaired_difference(
    rows_a: Sequence[Row],
    rows_b: Sequence[Row],
    metric: Metric,
    cluster: str,
    *,
    draws: int = DRAWS,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """B minus A as if the arms were independent samples: each arm's level is resampled on
    its own. Against ``interval``'s paired difference it shows what pairing the arms'
    episodes gains (a branch and its parent share their requests)."""
    gen = np.random.default_rng(seed)
    a, b = (_drawn([rows], metric, level_of, cluster, draws, gen) for rows in (rows_a, rows_b))
    both = Drawn(
        b.estimate - a.estimate,
        b.out - a.out if len(a.out) and len(b.out) else np.array([]),
        f"{a.design}, arms resampled apart",
        draws,
        {d: b.per_domain[d] - a.per_domain.get(d, np.nan) for d in b.per_domain},
        a.seeds,
        None if a.df is None or b.df is None else min(a.df, b.df),
        min(a.strata, b.strata),
    )
    return both.interval(level)


@dataclass(frozen=True)
class Drawn:
    """An estimate with its resampled (or t-drawn) values, before they become an interval."""

    estimate: float
    out: np.ndarray
    design: str
    draws: int
    per_domain: dict[str, float]
    seeds: int
    df: int | None
    strata: int = 0

    def interval(self, level: float) -> Interval:
        """The percentile interval at ``level`` of the finite draws (a draw with nobody
        counted has no value), with their bias."""
        low, high = percentile(self.out, level)  # a draw with nobody counted has no value
        finite = self.out[np.isfinite(self.out)]
        bias = float(finite.mean() - self.estimate) if len(finite) else 0.0
        return Interval(
            self.estimate,
            low,
            high,
            self.design,
            self.draws,
            self.per_domain,
            self.seeds,
            self.df,
            bias,
            self.strata,
        )


def _drawn(
    arms: Sequence[Sequence[Row]],
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    cluster: str,
    draws: int,
    gen: np.random.Generator,
) -> Drawn:
    strata = _strata(arms, metric, cluster)
    replicates = sorted({r for r, _ in strata}, key=str)
    domains = sorted({d for _, d in strata})
    totals = {d: sum(s.sum(axis=0) for (_, dd), s in strata.items() if dd == d) for d in domains}
    design = {"request": "paired-request"}.get(cluster, f"cluster-{cluster}")
    if len(replicates) > 1:
        design += f" x {len(replicates)} seeds"
    estimate = float(statistic(_values(totals, metric)))
    per_domain = {d: float(statistic(metric.finish(t))) for d, t in totals.items()}
    if min(len(units) for units in strata.values()) > 1:
        out = _bootstrap_draws(strata, totals, metric, statistic, draws, gen)
        return Drawn(estimate, out, design, draws, per_domain, len(replicates), None)
    grid = np.full((len(replicates), len(domains), len(arms)), np.nan)
    for (rep, domain), units in strata.items():
        grid[replicates.index(rep), domains.index(domain)] = metric.finish(units.sum(axis=0))
    if len(domains) > 1 and not metric.pooled:
        t = stratified_t(grid)
        strata_used = len(domains)
    else:  # one domain, or a measure pooled across domains: the seeds' macro values
        seed_values = np.stack(
            [
                _values({d: s.sum(axis=0) for (r, d), s in strata.items() if r == rep}, metric)
                for rep in replicates
            ]
        )
        t = seed_t(seed_values[np.isfinite(seed_values).all(axis=1)])
        strata_used = 0
    if t is None:
        return Drawn(estimate, np.array([]), design, draws, per_domain, len(replicates), None)
    mean, scale, df = t
    out = t_draws(mean, scale, df, statistic, draws, gen)
    estimate = float(statistic(mean))
    return Drawn(estimate, out, design, draws, per_domain, len(replicates), df, strata_used)


def _bootstrap_draws(
    strata: dict[tuple[Any, str], np.ndarray],
    totals: dict[str, np.ndarray],
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    draws: int,
    gen: np.random.Generator,
) -> np.ndarray:
    """The statistic in each two-stage bootstrap draw (``resampling.resampled``: the seeds,
    then the units of each picked seed and domain)."""
    out = np.empty(draws)
    start = 0
    for size, drawn in resampled(strata, draws, gen, replicate=lambda s: s[0]):
        found = {d: np.zeros((size, *t.shape)) for d, t in totals.items()}
        for (_, domain), (levels, counts) in drawn.items():
            found[domain] += sums(levels, counts, totals[domain].shape)
        out[start : start + size] = statistic(np.moveaxis(_values(found, metric), -1, 0))
        start += size
    return out


def level_of(values: np.ndarray) -> np.ndarray:
    """The statistic of one arm: its level."""
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
