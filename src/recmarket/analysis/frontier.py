"""Access, attention and accountability as one design problem: every design of an
experiment (a cell, pooled over its seeds) with what it gives users and how concentrated it
leaves the market, and which designs no other beats on both.

A design *dominates* another when its target purchase is at least as high and its Top-1 HHI
at least as low, one of them strictly. Dominance is judged on the point estimates, and the
table carries each measure's interval beside it: a design marked non-dominated whose
intervals overlap a dominating candidate's is not shown to be better, only not shown worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recmarket.analysis.attacks import defence
from recmarket.analysis.bootstrap import Row
from recmarket.analysis.market_measures import market_measures, shown_at
from recmarket.config import RunConfig

WELFARE, CONCENTRATION = "target_purchase", "hhi_top1"


def design_row(name: str, cfg: RunConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """One design's settings that the frontier varies, and its measures with intervals."""
    found = market_measures(cfg, rows)
    market = cfg.market
    return {
        "design": name,
        "n_platforms": market.n_platforms,
        "shortlist_k": market.shortlist_k,
        "accountability": defence(cfg),
        "candidate_order": "shuffled" if market.shuffle_candidates else "platform order",
        **{
            f"{m.name}{end}": found[f"{m.name}{end}"]
            for m in shown_at("frontier")
            for end in ("", "_low", "_high")
        },
        "interval": found["measures_interval"],
    }


def dominated(row: dict[str, Any], others: Sequence[dict[str, Any]]) -> bool:
    """Whether another design serves users at least as well at no more concentration, and
    strictly better on one of the two."""
    for other in others:
        if other is row:
            continue
        no_worse = other[WELFARE] >= row[WELFARE] and other[CONCENTRATION] <= row[CONCENTRATION]
        better = other[WELFARE] > row[WELFARE] or other[CONCENTRATION] < row[CONCENTRATION]
        if no_worse and better:
            return True
    return False


def frontier_table(cells: Sequence[tuple[str, RunConfig, Sequence[Row]]]) -> list[dict[str, Any]]:
    """Every design, with ``dominated`` marked; the non-dominated first, by welfare."""
    table = [design_row(name, cfg, rows) for name, cfg, rows in cells]
    for row in table:
        row["dominated"] = dominated(row, table)
    return sorted(table, key=lambda r: (r["dominated"], -r[WELFARE]))
