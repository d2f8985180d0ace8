"""The person bootstrap: a statistic of units (people, each holding all of their own
observations), its percentile interval from resampling whole units with replacement.

It is the interval of the validity card and of its paired differences: a person's
held-outs in every domain move together, so the unit resampled is the person. The market's
own intervals resample clusters within strata (``analysis.bootstrap``), the card's mean
rows use scipy's vectorised bootstrap of the same kind; this is the one loop for any other
statistic (a rank correlation, a difference of two), written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

Unit = TypeVar("Unit")


def person_interval(
    units: Sequence[Unit],
    statistic: Callable[[Sequence[Unit]], float],
    *,
    seed: int,
    draws: int,
    level: float = 0.95,
) -> tuple[float, float]:
    """The ``level`` percentile interval of ``statistic`` over ``draws`` resamples of the
    units (drawn from a generator seeded with ``seed``); resamples where the statistic is
    undefined (NaN) are left out of the percentiles. NaN ends for fewer than two units."""
    if len(units) < 2:
        return float("nan"), float("nan")
    gen = np.random.default_rng(seed)
    n = len(units)
    drawn = [statistic([units[i] for i in gen.integers(n, size=n)]) for _ in range(draws)]
    tail = 100 * (1 - level) / 2
    low, high = np.nanpercentile(drawn, [tail, 100 - tail])
    return float(low), float(high)
