"""A market measure: the share of decided episodes in which the user bought the candidate
the user agent ranked first. It says how much of the agent's ranking the user follows,
which the funnel's Top-1 and purchase rates do not say apart: both fall when the target is
missing, whoever is ranked first.

Its interval is recmarket's: the two-stage cluster bootstrap of the ratio of per-episode
sums over the cell's memory units, so the measure gives each episode's parts (bought the
first, decided) and how summed parts become the value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recmarket.api import MarketMeasure, Metric


def parts(row: dict[str, Any]) -> tuple[float, float]:
    """(bought the first-ranked candidate, reached a decision with a first-ranked one)."""
    first = row.get("top1_platform")
    if first is None:
        return (0.0, 0.0)
    return (float(row.get("purchased_platform") == first), 1.0)


def finish(sums: np.ndarray) -> np.ndarray:
    """The first sum over the second (NaN where nothing was counted)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[..., 0] / sums[..., 1]


TOP1_CONVERSION = MarketMeasure(
    "top1_conversion",
    "top-1 conversion",
    ("top1_platform", "purchased_platform"),
    "decided episodes whose user bought the candidate ranked first",
    lambda cfg: Metric(parts, finish),
)
