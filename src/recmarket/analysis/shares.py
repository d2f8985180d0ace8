"""Shares the figures draw and the paper comparison measures, defined once.

Each is a macro estimate where the paper's is (per domain, then the unweighted mean over
domains), or pooled across domains where the paper pools (Fig. 11's label shares). A share
over no episodes is NaN, and a domain without any is left out of the mean.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Row = dict[str, Any]
LABELS = ("high", "mixed", "low")


def share(rows: list[Row], keep: Callable[[Row], bool], hit: Callable[[Row], bool]) -> float:
    """Percent of the kept rows that hit (NaN when none is kept)."""
    kept = [r for r in rows if keep(r)]
    return 100.0 * sum(map(hit, kept)) / len(kept) if kept else float("nan")


def by_domain(rows: list[Row], value: Callable[[list[Row]], float]) -> float:
    """Unweighted mean over domains of a per-domain value (the paper's macro estimate)."""
    domains = sorted({r["domain"] for r in rows})
    values = [value([r for r in rows if r["domain"] == d]) for d in domains]
    values = [v for v in values if not np.isnan(v)]
    return float(np.mean(values)) if values else float("nan")


def top1_share_in_rounds(rows: list[Row], policy: str, first: int, last: int) -> float:
    """Percent of Top-1 slots won by ``policy`` in rounds first..last of each domain's
    schedule (Fig. 10), macro over domains."""
    return by_domain(
        rows,
        lambda rs: share(
            rs, lambda r: first <= r["ord"] + 1 <= last, lambda r: r["top1_policy"] == policy
        ),
    )


def label_shares(rows: list[Row], policy: str) -> dict[str, float]:
    """Percent of each claim-reliability label among the records of purchases from
    ``policy`` platforms, pooled across domains (Fig. 11)."""
    return {
        label: share(
            rows,
            lambda r: r["purchased_policy"] == policy and bool(r["rep_label"]),
            lambda r, lab=label: r["rep_label"] == lab,
        )
        for label in LABELS
    }


def same_item_rate(rows: list[Row]) -> float:
    """Percent of episodes whose Top-1 item was also proposed by another platform
    (a same-item comparison, A.8), macro over domains."""
    return by_domain(rows, lambda rs: share(rs, lambda r: True, lambda r: r["same_item_top1"]))


def same_item_wins(rows: list[Row], policy: str) -> float:
    """Percent of same-item comparisons that ``policy`` won at Top-1, macro over domains."""
    return by_domain(
        rows,
        lambda rs: share(rs, lambda r: r["same_item_top1"], lambda r: r["top1_policy"] == policy),
    )


def target_copy_share(rows: list[Row]) -> float:
    """Mean share of the candidate pool that carries the target (A.6), macro over domains."""
    return by_domain(
        rows, lambda rs: 100.0 * float(np.mean([r["target_copies"] / r["pool_size"] for r in rs]))
    )
