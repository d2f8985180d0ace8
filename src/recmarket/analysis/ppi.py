"""Prediction-powered estimates: a value for the pilot backend from its few units and the
surrogate's many (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi and Zrnic 2024).

Every unit of a study is played by the surrogate, and a random subset of them (the pilot)
by the backend a result should hold for. For a statistic phi of summed per-unit parts
(``analysis.bootstrap.Metric``: a rate, a share, a concentration, a contrast of cells):

    theta = phi(pilot) + lambda * (phi(surrogate, every unit) - phi(surrogate, pilot units))

The correction phi(pilot) - phi(surrogate on the pilot) removes the surrogate's bias, so
theta is consistent for the pilot backend's value however wrong the surrogate is; the
surrogate on every unit only reduces the variance, as far as it correlates with the pilot.
lambda is power-tuned (PPI++): the weight that minimises theta's variance, read off the
same resampling draws, clipped to [0, 1]. At lambda = 0 theta is the pilot alone, so the
tuned estimate's spread is never above the pilot's own; every interval is the estimate
plus or minus z times its draws' standard error, so neither is its width.

What the interval covers is the pilot backend's value on this market's units: the study
played every unit with the surrogate, so its value there is known, and the pilot is a
sample drawn without replacement from those units within each (seed, domain) stratum. The
resampling is therefore Rao and Wu's (1988) rescaled bootstrap of the pilot's units alone
(n - 1 of a stratum's n, their deviation shrunk by sqrt(1 - n / N)), the bulk held fixed;
a pilot of every unit knows the value exactly. Strata of fewer than ``min_units_per_stratum``
pilot units are merged, by domain and then into one pool (``analysis.ppi_strata``); below
that even pooled, an estimand has no interval. A pilot drawn at other shares in other
strata (a Neyman allocation) weighs each pilot unit by the units it stands for. Where a
whole (seed, domain) is the unit, the units are the (seed, domain) values themselves and
the interval is Student's t over the pilot's units with the same finite-population factor.
The units' parts are assembled from the stores' rows by ``analysis.ppi_units``.
The offline-only interval is the surrogate's own as every table of the report gives it
(seeds and units resampled): a statement about the surrogate, not about this market.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from recmarket.analysis.bootstrap import Metric
from recmarket.analysis.ppi_noise import deviations, noise_draws, value_noise
from recmarket.analysis.ppi_strata import (
    FEWEST,
    Strata,
    design_weights,
    merged,
    no_interval_said,
    stacked,
)
from recmarket.analysis.ppi_units import UnitParts
from recmarket.resampling import resampled, sums

# How the surrogate's weight lambda is set from its variance-minimising value: PPI++ clips
# it to [0, 1], so the estimate is never further from the pilot's own than the surrogate
# allows and its spread never above the pilot's; regression adjustment (the surrogate as a
# covariate, the survey's difference estimator) takes it as it is, negative or above 1.
TUNINGS: dict[str, Callable[[float], float]] = {
    "ppi++": lambda w: float(np.clip(w, 0, 1)),
    "regression": float,
}
DRAWS = 4_000  # resampling draws of one estimate (its percentile ends move by ~0.1 of a se)


@dataclass(frozen=True)
class Estimate:
    """One estimand's prediction-powered estimate beside the surrogate's and the pilot's
    own, the surrogate's bias on the pilot's units (surrogate minus pilot), each with its
    95% interval, and what the correction rests on."""

    offline: tuple[float, float, float]
    pilot: tuple[float, float, float]
    ppi: tuple[float, float, float]
    bias: tuple[float, float, float]
    correlation: float  # between the pilot's and the surrogate's estimates on the pilot
    effective_n: float  # pilot units the pilot alone would need for the PPI's variance
    pilot_n: int
    weight: float  # the power-tuned lambda
    method: str
    # the PPI estimate's spread per unit as if the units were drawn with replacement: what a
    # confidence sequence over a growing pilot needs (the fixed-n interval's finite-population
    # correction is exact for one size only)
    unit_spread: float = float("nan")
    df: int | None = None  # the interval's degrees of freedom (None: normal)
    strata: str = ""  # the level the strata were merged to (analysis/ppi_strata.py)
    n_strata: int = 0  # how many strata the interval resampled within (0: no interval)


def _finish(metric: Metric, statistic: Callable[[np.ndarray], np.ndarray], sums: np.ndarray):
    """The statistic from per-domain sums (..., domains, arms, parts)."""
    if metric.pooled:
        return statistic(np.moveaxis(metric.finish(sums.sum(axis=-3)), -1, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        values = np.nanmean(metric.finish(sums), axis=-2)  # (..., arms)
    return statistic(np.moveaxis(values, -1, 0))


def _around(
    centre: float, drawn: np.ndarray, level: float, df: int | None = None
) -> tuple[float, float, float]:
    """The estimate with its interval from the draws' standard error, normal or Student's t
    at ``df`` design degrees of freedom: for every estimate of a row the same kind of
    interval, so that their widths compare as their standard errors do (a percentile
    interval's ends move with the draws' skew, and power tuning bounds the spread, not the
    skew)."""
    if len(drawn) < 2:
        return centre, float("nan"), float("nan")
    quantile = stats.norm.ppf((1 + level) / 2) if df is None else stats.t.ppf((1 + level) / 2, df)
    half = float(quantile * np.std(drawn, ddof=1))
    return centre, centre - half, centre + half


def estimate(
    units: UnitParts,
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    draws: int = DRAWS,
    seed: int = 0,
    level: float = 0.95,
    least: int = FEWEST,
    tuning: str = "ppi++",
) -> Estimate:
    """The PPI++ estimate of ``statistic`` (of the arms' values) for the pilot backend, its
    interval resampled within strata of ``least`` pilot units at least (merged where a
    seed and domain holds fewer: analysis/ppi_strata.py); ``tuning`` sets the surrogate's
    weight (TUNINGS: PPI++'s clipped one, or regression adjustment's)."""
    if tuning not in TUNINGS:
        raise ValueError(f"unknown tuning {tuning!r}; known: {', '.join(TUNINGS)}")
    if all(len(p) == 1 for p in units.predicted.values()):  # a whole seed and domain a unit
        return _t_over_units(units, metric, statistic, level, least, TUNINGS[tuning])
    strata = merged({s: len(o) for s, o in units.observed.items()}, max(least, FEWEST))
    return _bootstrapped(
        units, metric, statistic, draws, seed, level, strata, least, TUNINGS[tuning]
    )


def _bootstrapped(
    units: UnitParts,
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    draws: int,
    seed: int,
    level: float,
    strata: Strata | None,
    least: int,
    tuned: Callable[[float], float],
) -> Estimate:
    gen = np.random.default_rng(seed)
    cells = sorted(units.predicted, key=str)
    domains = sorted({d for _, d in cells})
    shape = next(iter(units.predicted.values())).shape[1:]
    # the point estimates' plain sums per domain: the pilot's and the surrogate's on the
    # pilot's units, and the surrogate's on every unit
    plain = np.zeros((3, len(domains), *shape))
    # each pilot unit weighs the units it stands for (1 where every stratum has one share)
    weight_of = design_weights(
        {s: len(units.observed[s]) for s in cells},
        {s: len(units.predicted[s]) for s in cells},
        units.inclusion,
    )
    paired = {s: np.stack([units.observed[s], units.on_pilot(s)], axis=1) for s in cells}
    for s, w in weight_of.items():
        paired[s] = paired[s] * w.reshape(-1, *(1,) * (paired[s].ndim - 1))
    for stratum in cells:
        d = domains.index(stratum[1])
        plain[:, d] += [*paired[stratum].sum(axis=0), units.predicted[stratum].sum(axis=0)]
    a, c, b = (float(_finish(metric, statistic, s)) for s in plain)
    if strata is None:
        return _without_interval(units, metric, statistic, gen, draws, level, (a, c), least)
    # per draw and domain the pilot's and the surrogate's sums on the pilot's units
    drawn = np.zeros((2, draws, len(domains), *shape))
    wide = np.zeros_like(drawn)  # the same draws with replacement (no shrink)
    pools = {g: stacked(paired, members, domains) for g, members in strata.groups.items()}
    start = 0
    for size, chunk in resampled(pools, draws, gen):  # n - 1 of each stratum's n, one stage
        for group, (levels, counts) in chunk.items():
            n = len(pools[group])
            everyone = sum(len(units.predicted[s]) for s in strata.groups[group])
            # Rao and Wu's (1988) rescaled bootstrap for a sample without replacement: the
            # n - 1 units' sums rescaled to n, their deviation shrunk by sqrt(1 - n / N)
            found = np.moveaxis(sums(levels, counts, (2, len(domains), *shape)), 1, 0)
            found *= n / (n - 1)
            total = pools[group].sum(axis=0)[:, None]
            shrink = np.sqrt(max(1 - n / everyone, 0.0))
            drawn[:, start : start + size] += total + shrink * (found - total)
            wide[:, start : start + size] += found
        start += size
    pool = deviations(units.noise, domains) if units.noise else np.zeros(0)
    for group, members in strata.groups.items() if len(pool) else ():
        everyone = sum(len(units.predicted[s]) for s in members)
        n = len(pools[group])
        mean_weight = sum(float(weight_of[s].sum()) for s in members if s in weight_of) / n
        drawn[0] += mean_weight * noise_draws(pool, n, everyone, draws, gen)
    a_, c_ = (_finish(metric, statistic, s) for s in drawn)
    ok = np.isfinite(a_) & np.isfinite(c_)
    a_, c_ = a_[ok], c_[ok]
    # theta = a + weight * (b - c), b fixed: its variance is least at cov(a, c) / var(c)
    moments = np.cov(a_, c_) if len(a_) > 1 else np.zeros((2, 2))
    spread = float(moments[1, 1])
    weight = tuned(moments[0, 1] / spread) if spread > 0 else 0.0
    theta_ = a_ + weight * (b - c_)
    var_pilot, var_ppi = float(np.var(a_)), float(np.var(theta_))
    df = units.pilot_units - strata.count  # a stratified sample's design degrees of freedom
    a_wide, c_wide = (_finish(metric, statistic, s) for s in wide)
    kept = np.isfinite(a_wide) & np.isfinite(c_wide)
    per_unit = float(np.std(a_wide[kept] - weight * c_wide[kept], ddof=1))
    return Estimate(
        _offline(units, metric, statistic, gen, draws, level),
        _around(a, a_, level, df),
        _around(a + weight * (b - c), theta_, level, df),
        _around(c - a, c_ - a_, level, df),
        _correlation(a_, c_),
        _effective(units.pilot_units, var_pilot, var_ppi),
        units.pilot_units,
        weight,
        f"Student's t at {df} design df (pilot units - strata), bootstrap standard errors "
        f"over the pilot's units (Rao-Wu rescaled, without replacement from this market's "
        f"units, within {strata.count} {strata.level} strata of {least} pilot units or "
        f"more, {len(a_)} draws)",
        per_unit * np.sqrt(units.pilot_units),
        df,
        strata.level,
        strata.count,
    )


def _without_interval(
    units: UnitParts,
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    gen: np.random.Generator,
    draws: int,
    level: float,
    pilot_and_surrogate: tuple[float, float],
    least: int,
) -> Estimate:
    """Too few pilot units even pooled: the pilot's own value (PPI at weight 0) and the
    surrogate's bias on its units, without intervals, and why."""
    a, c = pilot_and_surrogate
    nan = float("nan")
    return Estimate(
        _offline(units, metric, statistic, gen, draws, level),
        (a, nan, nan),
        (a, nan, nan),
        (c - a, nan, nan),
        nan,
        nan,
        units.pilot_units,
        0.0,
        no_interval_said(units.pilot_units, least),
    )


def _effective(n: int, var_pilot: float, var_ppi: float) -> float:
    if var_ppi > 0:
        return n * var_pilot / var_ppi
    return float("inf") if var_pilot > 0 else float("nan")


def _offline(
    units: UnitParts,
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    gen: np.random.Generator,
    draws: int,
    level: float,
) -> tuple[float, float, float]:
    """The surrogate's own estimate with the report's usual interval: seeds resampled, then
    n - 1 of each stratum's n units (the two-stage design of ``analysis.bootstrap``)."""
    strata = sorted(units.predicted, key=str)
    replicates = sorted({r for r, _ in strata}, key=str)
    domains = sorted({d for _, d in strata})
    shape = next(iter(units.predicted.values())).shape[1:]
    drawn = np.zeros((draws, len(domains), *shape))
    plain = np.zeros((len(domains), *shape))
    seeds = gen.multinomial(len(replicates), [1 / len(replicates)] * len(replicates), draws)
    for replicate, domain in strata:
        f = units.predicted[(replicate, domain)]
        d, n = domains.index(domain), len(f)
        plain[d] += f.sum(axis=0)
        times = seeds[:, replicates.index(replicate)]
        drawn[:, d] += np.tensordot(gen.multinomial(times * max(n - 1, 1), np.full(n, 1 / n)), f, 1)
    centre, values = _finish(metric, statistic, plain), _finish(metric, statistic, drawn)
    return _around(float(centre), values[np.isfinite(values)], level)


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _t_over_units(
    units: UnitParts,
    metric: Metric,
    statistic: Callable[[np.ndarray], np.ndarray],
    level: float,
    least: int,
    tuned: Callable[[float], float],
) -> Estimate:
    """Each (seed, domain) one unit: its value from its own sums; the estimand the mean
    over units; PPI++ for a mean with the subset's variance, and Student's t over the
    units pooled (no interval below ``least`` of them)."""

    def value(sums: np.ndarray) -> float:
        return float(_finish(metric, statistic, sums[None]))

    f_all = np.array([value(units.predicted[s].sum(axis=0)) for s in units.predicted])
    pairs = [
        (value(units.observed[s].sum(axis=0)), value(units.on_pilot(s).sum(axis=0)))
        for s, o in units.observed.items()
        if len(o)
    ]
    y, f = (np.array(v) for v in zip(*pairs, strict=True)) if pairs else (np.array([]),) * 2
    n, big = len(y), len(f_all)
    nan = float("nan")

    def around(centre: float, var: float, df_n: int = n) -> tuple[float, float, float]:
        if df_n < 2 or not np.isfinite(var):
            return centre, nan, nan
        half = stats.t.ppf((1 + level) / 2, df_n - 1) * np.sqrt(max(var, 0.0))
        return centre, centre - half, centre + half

    if n < max(least, FEWEST):
        mean_y = float(y.mean()) if n else nan
        return Estimate(
            around(float(f_all.mean()), float(np.var(f_all, ddof=1)) / big, big),
            (mean_y, nan, nan),
            (mean_y, nan, nan),
            (float((f - y).mean()) if n else nan, nan, nan),
            nan,
            nan,
            n,
            0.0,
            no_interval_said(n, max(least, FEWEST)),
        )
    var_f = float(np.var(f, ddof=1))
    cov = float(np.cov(y, f)[0, 1])
    weight = tuned(cov / var_f) if var_f > 0 else 0.0
    shrink = 1 / n - 1 / big  # the pilot is drawn without replacement from the units
    # the expected estimand: the draw noise of the units never played twice (ppi_noise)
    noise = value_noise(units.noise, value) / big if units.noise else 0.0
    var_pilot = float(np.var(y, ddof=1)) * shrink + noise
    var_ppi = float(np.var(y - weight * f, ddof=1)) * shrink + noise
    theta = float(y.mean() + weight * (f_all.mean() - f.mean()))
    return Estimate(
        around(float(f_all.mean()), float(np.var(f_all, ddof=1)) / big, big),
        around(float(y.mean()), var_pilot),
        around(theta, var_ppi),
        around(float((f - y).mean()), float(np.var(f - y, ddof=1)) * shrink + noise),
        _correlation(y, f),
        _effective(n, var_pilot, var_ppi),
        n,
        weight,
        f"Student's t over {n} of {big} units (a seed and domain each, drawn without "
        f"replacement), df {n - 1}",
        float(np.std(y - weight * f, ddof=1)),
        n - 1,
        "pooled",
        1,
    )
