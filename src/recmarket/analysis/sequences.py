"""Anytime-valid intervals for a pilot that grows: an asymptotic confidence sequence, so
that looking at a prediction-powered estimate and then growing its pilot keeps the
coverage (the estimates themselves: ``analysis.ppi``)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def anytime(
    centre: float,
    unit_spread: float,
    n: int,
    first_n: float,
    level: float = 0.95,
    df: int | None = None,
) -> tuple[float, float]:
    """The ends of an asymptotic confidence sequence around ``centre`` (Waudby-Smith,
    Arnold, Ramdas, Wu and Ramdas 2021, Theorem 2.2): valid at once at every size the pilot
    is grown to, so looking at the pilot and growing it keeps the coverage. ``unit_spread``
    is the estimate's spread per unit as if units were drawn with replacement: drawing
    without replacement only narrows the truth's spread, so the sequence stays valid for
    this market's units. Its tuning rho makes it narrowest at ``first_n`` units, the first
    look's size, fixed before any look. The sequence is asymptotic, and its spread is read
    off a few units where the interval has ``df`` degrees of freedom: it is widened by
    Student's t over the normal quantile there, as the fixed-n interval is (at 6 whole-domain
    units the plain sequence covered 93% in the coverage study, docs/llm-valid.md)."""
    if not np.isfinite(unit_spread) or n < 1 or first_n <= 0:
        return float("nan"), float("nan")
    if df is not None and df >= 1:
        unit_spread *= stats.t.ppf((1 + level) / 2, df) / stats.norm.ppf((1 + level) / 2)
    alpha = 1 - level
    rho2 = (-2 * np.log(alpha) + np.log(-2 * np.log(alpha) + 1)) / first_n
    half = unit_spread * np.sqrt(
        2 * (n * rho2 + 1) / (n**2 * rho2) * np.log(np.sqrt(n * rho2 + 1) / alpha)
    )
    return float(centre - half), float(centre + half)
