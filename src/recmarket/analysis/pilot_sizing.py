"""How many pilot units a target half-width needs, read off a first pilot.

A pilot is drawn without replacement from a study's N units, so an estimate's half-width
at n pilot units is q x s x sqrt(1/n - 1/N) (analysis/ppi.py): s, the per-unit spread,
is read off the first pilot's interval at its n0 units, for the pilot-only estimate and
for the prediction-powered one alike (their spreads differ by the surrogate's correlation).
Solving for n gives the units a target half-width needs; q is Student's t at the
interval's degrees of freedom (n less the strata, or n - 1 over whole (seed, domain)
units), or the normal quantile where none are given. The first pilot's spread is itself
an estimate: a plan is a forecast, and growing a pilot that was looked at needs the
anytime-valid interval. A plan is never below the units its strata need for an interval
at all (``fewest``: the pilot's ``min_units_per_stratum`` in each stratum the interval
resampled within, analysis/ppi_strata.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

LEVEL = 0.95


@dataclass(frozen=True)
class Sized:
    """Units a target half-width needs, or why there is no answer."""

    units: int | None
    note: str = ""


def _quantile(n: float, lost_df: int | None) -> float:
    if lost_df is not None:
        return float(stats.t.ppf((1 + LEVEL) / 2, max(n - lost_df, 1)))
    return float(stats.norm.ppf((1 + LEVEL) / 2))


def units_for(
    half_now: float,
    n_now: int,
    units: int,
    target: float,
    lost_df: int | None,
    fewest: int = 2,
) -> Sized:
    """Pilot units whose interval's half-width is ``target``, from one of ``half_now`` at
    ``n_now`` of ``units`` units, and ``fewest`` at least; its t quantile has n -
    ``lost_df`` degrees of freedom (None: normal)."""
    if not (math.isfinite(half_now) and target > 0):
        if target > 0 and n_now < fewest <= units:
            return Sized(fewest, f"no interval yet: an interval needs {fewest} pilot units")
        return Sized(None, "no interval to size from")
    if n_now >= units:
        return Sized(units, "the first pilot holds every unit")
    spread = half_now / (_quantile(n_now, lost_df) * math.sqrt(1 / n_now - 1 / units))
    if spread == 0:
        return Sized(min(max(n_now, fewest), units), "no spread among the pilot's units")
    n = float(n_now)
    for _ in range(50):  # t's quantile depends on n: iterate to the fixed point
        wanted = 1 / ((target / (_quantile(n, lost_df) * spread)) ** 2 + 1 / units)
        if abs(wanted - n) < 0.5:
            break
        n = wanted
    if math.ceil(wanted) < fewest:
        return Sized(min(units, fewest), f"the {fewest} pilot units its strata need")
    return Sized(min(units, max(2, math.ceil(wanted))))
