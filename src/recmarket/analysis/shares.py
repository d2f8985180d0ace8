"""Shares the figures draw and the paper comparison measures, defined once as Metrics
(``recmarket.analysis.bootstrap``), so a point value and its interval are one definition.

Each is a macro estimate where the paper's is (per domain, then the unweighted mean over
domains), or pooled across domains where the paper pools (Fig. 11's label shares). A share
over no episodes is NaN, and a domain without any is left out of the mean.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from recmarket.analysis.bootstrap import Metric, Row, ratio
from recmarket.catalogue.policies import PAPER_POLICIES

LABELS = ("high", "mixed", "low")
FAMILIES = PAPER_POLICIES  # the paper compares its three families


def share_of(
    keep: Callable[[Row], bool], hit: Callable[[Row], bool], *, pooled: bool = False
) -> Metric:
    """Percent of the kept rows that hit."""
    return Metric(
        lambda r: (float(keep(r) and hit(r)), float(keep(r))),
        lambda s: ratio(s, 100.0),
        pooled,
    )


def top1_share(policy: str) -> Metric:
    """Percent of Top-1 slots won by ``policy`` platforms (episodes with a Top-1)."""
    return share_of(lambda r: r["top1_policy"] is not None, lambda r: r["top1_policy"] == policy)


def largest_top1_share() -> Metric:
    """The largest family's percent of Top-1 slots, family shares taken per domain."""

    def finish(sums: np.ndarray) -> np.ndarray:
        best = np.stack([sums[..., :-1].max(axis=-1), sums[..., -1]], axis=-1)
        return ratio(best, 100.0)

    return Metric(
        lambda r: (
            *(float(r["top1_policy"] == f) for f in FAMILIES),
            float(bool(r["top1_policy"])),
        ),
        finish,
    )


def top1_in_rounds(policy: str, first: int, last: int) -> Metric:
    """Percent of Top-1 slots won by ``policy`` in rounds first..last of each domain's
    schedule (Fig. 10)."""
    return share_of(lambda r: first <= r["ord"] + 1 <= last, lambda r: r["top1_policy"] == policy)


def label_share(policy: str, label: str) -> Metric:
    """Percent of ``label`` among the records of purchases from ``policy`` platforms,
    pooled across domains (Fig. 11)."""
    return share_of(
        lambda r: r["purchased_policy"] == policy and bool(r["rep_label"]),
        lambda r: r["rep_label"] == label,
        pooled=True,
    )


def same_item_share() -> Metric:
    """Percent of episodes whose Top-1 item was also proposed by another platform (A.8)."""
    return share_of(lambda r: True, lambda r: r["same_item_top1"])


def same_item_win_share(policy: str) -> Metric:
    """Percent of same-item comparisons that ``policy`` won at Top-1."""
    return share_of(lambda r: r["same_item_top1"], lambda r: r["top1_policy"] == policy)


def target_pool_share() -> Metric:
    """Mean percent of the candidate pool that carries the target (A.6)."""
    return Metric(lambda r: (r["target_copies"] / r["pool_size"], 1.0), lambda s: ratio(s, 100.0))
