"""Shares the figures draw and the paper comparison measures, defined once as Metrics
(``recmarket.analysis.bootstrap``), so a point value and its interval are one definition.
The paper's own shares (its largest family's Top-1 share, a label's share of a family's
records, a block of rounds, ...) register here as measures shown in the paper comparison,
the three that take parameters with their models.

Each is a macro estimate where the paper's is (per domain, then the unweighted mean over
domains), or pooled across domains where the paper pools (Fig. 11's label shares). A share
over no episodes is NaN, and a domain without any is left out of the mean.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from recmarket.analysis.bootstrap import Metric, Row, ratio, scaled
from recmarket.catalogue.measures import MARKET_MEASURES, MarketMeasure, Place
from recmarket.catalogue.policies import PAPER_POLICIES

LABELS = ("high", "mixed", "low")
FAMILIES = PAPER_POLICIES  # the paper compares its three families


def share_of(
    keep: Callable[[Row], bool],
    hit: Callable[[Row], bool],
    *,
    pooled: bool = False,
    scale: float = 100.0,
) -> Metric:
    """Percent (``scale`` 1: the fraction) of the kept rows that hit."""
    return Metric(
        lambda r: (float(bool(keep(r) and hit(r))), float(bool(keep(r)))),
        lambda s: ratio(s, scale),
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


class FamilyParams(BaseModel):
    """A paper family's share: which family (one of the paper's three)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: Literal["strict", "balanced", "exaggeration"] = "exaggeration"


class LabelParams(FamilyParams):
    """A record label's share among the records of a family's sales."""

    label: Literal["high", "mixed", "low"] = "high"


class RoundsParams(FamilyParams):
    """A family's Top-1 share in a block of rounds (1-based, both ends included)."""

    first: int = Field(1, ge=1)
    last: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> RoundsParams:
        if self.last < self.first:
            raise ValueError(f"rounds {self.first}-{self.last}: last comes before first")
        return self


PAPER: frozenset[Place] = frozenset({"paper"})
for measure in (  # the paper's own shares, as fractions (the paper comparison shows percents)
    MarketMeasure(
        "largest_family_top1",
        "largest family top-1",
        ("top1_policy",),
        "the largest paper family's share of Top-1 places, family shares taken per domain",
        lambda cfg: scaled(largest_top1_share(), 0.01),
        shown=PAPER,
    ),
    MarketMeasure(
        "target_pool_share",
        "target pool share",
        ("target_copies", "pool_size"),
        "the mean share of the candidate pool that carries the target (A.6)",
        lambda cfg: scaled(target_pool_share(), 0.01),
        shown=PAPER,
    ),
    MarketMeasure(
        "same_item_win",
        "same-item wins",
        ("same_item_top1", "top1_policy"),
        "the family's share of the same-item comparisons it won at Top-1 (A.8)",
        lambda cfg, p: scaled(same_item_win_share(p.policy), 0.01),
        shown=PAPER,
        Params=FamilyParams,
    ),
    MarketMeasure(
        "label_share",
        "label share",
        ("purchased_policy", "rep_label"),
        "a label's share of the records of the family's sales, pooled over domains (Fig. 11)",
        lambda cfg, p: scaled(label_share(p.policy, p.label), 0.01),
        shown=PAPER,
        Params=LabelParams,
    ),
    MarketMeasure(
        "top1_in_rounds",
        "top-1 in rounds",
        ("ord", "top1_policy"),
        "the family's share of Top-1 places in a block of each domain's rounds (Fig. 10)",
        lambda cfg, p: scaled(top1_in_rounds(p.policy, p.first, p.last), 0.01),
        shown=PAPER,
        Params=RoundsParams,
    ),
):
    MARKET_MEASURES.register(measure)
