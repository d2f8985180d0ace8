"""Each reputation mechanism paired with the oracle (``tables/oracle_contrasts.csv``).

The oracle's records are written by a referee who knows the held-out target; whether that
makes it a ceiling for a mechanism grounded in outcomes is not assumed: it is what this
contrast shows. A pair is two cells of one experiment whose settings differ only in the
mechanism (and its parameters), so they share their requests and the contrast is paired;
its verdict is read off the 95% interval of the oracle minus the mechanism in target
purchase, beside the same contrast in Exaggeration's Top-1 share.
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any

from recmarket.analysis.bootstrap import DRAWS, UnpairedCells, difference, interval
from recmarket.analysis.chain import rate_of, said
from recmarket.analysis.shares import top1_share
from recmarket.catalogue.conditions import condition
from recmarket.catalogue.mechanisms import ORACLE
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.chain_table import settings_but
from recmarket.report.data import Cell
from recmarket.report.html import table_html


def oracle_pairs(cells: dict[str, dict[str, Cell]]) -> list[tuple[str, Cell, Cell]]:
    """(experiment, mechanism cell, oracle cell) for every oracle cell and every cell of
    its experiment with another mechanism and otherwise the same settings."""
    pairs = []
    for experiment, members in cells.items():
        kept = [c for c in members.values() if condition(c.config.condition).reputation]
        oracles = [c for c in kept if c.config.market.reputation_in_use.mechanism == ORACLE.name]
        for oracle in oracles:
            twin = settings_but(oracle.config, "market.reputation")
            pairs += [
                (experiment, other, oracle)
                for other in kept
                if other is not oracle
                and other.config.market.reputation_in_use.mechanism != ORACLE.name
                and settings_but(other.config, "market.reputation") == twin
            ]
    return pairs


def verdict(low: float, high: float) -> str:
    """What a paired oracle-minus-mechanism interval in target purchase says."""
    if low > 0:
        return "the oracle serves users better"
    if high < 0:
        return "the oracle serves users worse"
    return "no detectable difference"


def oracle_rows(cells: dict[str, dict[str, Cell]], *, draws: int = DRAWS) -> list[dict[str, Any]]:
    """One row per oracle-mechanism pair: the oracle minus the mechanism in target purchase
    and in Exaggeration's Top-1 share (points, paired, 95%), and what the first says."""
    rows = []
    for experiment, other, oracle in oracle_pairs(cells):
        arms = [other.rows, oracle.rows]
        unit = coarsest([memory_unit(other.config), memory_unit(oracle.config)])
        try:
            purchase = interval(arms, rate_of("target_purchased"), difference, unit, draws=draws)
            top1 = interval(arms, top1_share("exaggeration"), difference, unit, draws=draws)
        except UnpairedCells:
            continue
        rows.append(
            {
                "experiment": experiment,
                "oracle": oracle.name,
                "mechanism": other.config.market.reputation_in_use.mechanism,
                "target_purchased": said(purchase),
                "exaggeration_top1": said(top1),
                "verdict": verdict(purchase.low, purchase.high),
                "interval_method": purchase.method,
            }
        )
    return rows


def oracle_html(rows: list[dict[str, Any]]) -> str:
    """The oracle pairs as the report shows them, with how many say what."""
    if not rows:
        return ""
    counts = Counter(r["verdict"] for r in rows)
    said_of = "; ".join(f"{n} {v}" for v, n in counts.most_common())
    return (
        '<figure id="oracle_contrasts"><h3>The oracle beside each mechanism with the same '
        "settings: oracle minus mechanism in points, paired, 95% intervals "
        f"({html.escape(rows[0]['interval_method'])}). In target purchase: "
        f"{html.escape(said_of)}. Only a pair whose interval lies above zero shows the "
        "oracle as that mechanism's ceiling.</h3>" + table_html(rows) + "</figure>"
    )
