"""What every figure draws with: a cell's level with its 95% interval (over the seeds and the
unit its episodes depend on together), grouped bars with error bars, and one colour per
policy and per reputation arm across all figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import Interval, Metric, interval, level_of
from recmarket.catalogue.policies import POLICIES, policy
from recmarket.experiments.units import memory_unit
from recmarket.report.data import Cell

ARMS = {"NoRep": "#DD8452", "LocalRep": "#55A868"}  # the reputation arms, in every figure
# Everything else a figure names more than once: the access conditions, the claim-reliability
# labels and the decisions, each one colour wherever it appears (none of a policy's).
OTHERS = {
    "Platform-Centric": "#8C8C8C",
    "high": "#2A9D8F",
    "mixed": "#E9C46A",
    "low": "#9B2226",
    "target purchase": "#3A6EA5",
    "off-target purchase": "#B0B0B0",
    "no purchase": "#E0E0E0",
}


def colour(label: str) -> str | None:
    """A policy's, an arm's or a label's colour in every figure; None (matplotlib's cycle)
    for anything else."""
    if label in POLICIES:
        return policy(label).colour
    return ARMS.get(label) or OTHERS.get(label)


def level(cell: Cell, metric: Metric, per: float = 1.0) -> Interval:
    """The cell's value of ``metric`` with its interval, divided by ``per`` (100 turns the
    shares' percentages into fractions)."""
    found = interval([cell.rows], metric, level_of, memory_unit(cell.config))
    if per == 1.0:
        return found
    return replace(
        found,
        estimate=found.estimate / per,
        low=found.low / per,
        high=found.high / per,
        per_domain={k: v / per for k, v in found.per_domain.items()},
    )


def yerr(intervals: Sequence[Interval]) -> np.ndarray:
    """Error bar lengths below and above each estimate (none where there is no interval)."""
    below = [i.estimate - i.low for i in intervals]
    above = [i.high - i.estimate for i in intervals]
    return np.nan_to_num(np.array([below, above], dtype=float), nan=0.0)


def columns(found: Interval, name: str = "estimate") -> dict[str, Any]:
    """An interval as a figure table's columns, its estimate under ``name``."""
    return {
        name: found.estimate,
        "low": found.low,
        "high": found.high,
        "interval": found.method,
    }


def bars(ax: Any, groups: list[str], series: dict[str, list[Interval]]) -> None:
    """Grouped bars, one series per label, each bar with its 95% interval."""
    width = 0.8 / len(series)
    for i, (label, intervals) in enumerate(series.items()):
        ax.bar(
            np.arange(len(groups)) + i * width,
            [v.estimate for v in intervals],
            width,
            yerr=yerr(intervals),
            capsize=2,
            label=label,
            color=colour(label),
            edgecolor="#555555",
            linewidth=0.4,
        )
    ax.set_xticks(np.arange(len(groups)) + width * (len(series) - 1) / 2, groups)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
