"""The report's tables that are not figures, each computed from every cell: the cells table,
the A.2 access check of the opening cells, the records each platform reached per memory set,
and which cells of one experiment came out identical (and why)."""

from __future__ import annotations

from typing import Any

from recmarket.analysis.attacks import attacker_levels
from recmarket.analysis.market_measures import market_measures
from recmarket.analysis.records import identical_groups, record_distribution
from recmarket.catalogue.conditions import condition
from recmarket.market.access import analytic_access
from recmarket.report.data import Cell


def cell_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """One row per cell for the report's cells table: its settings and its metrics with
    intervals."""
    rows = []
    for experiment, members in cells.items():
        for name, cell in members.items():
            rows.append(
                {"experiment": experiment, "cell": name, "replicates": cell.pooling}
                | cell.summary
                | market_measures(cell.config, cell.rows)
                | attacker_levels(cell.config, cell.rows)
            )
    return rows


def access_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """Appendix A.2 beside the empirical forced-inclusion rates of the opening cells."""
    opening = cells.get("market-opening", {})
    rows = []
    for name, cell in opening.items():
        market = cell.config.market
        pc, ua = analytic_access(market.n_platforms, market.rho, market.p_hit)
        rows.append(
            {
                "cell": name,
                "analytic": ua if condition(cell.config.condition).user_agent else pc,
                "forced_inclusion": cell.macro["forced_inclusion"],
                "target_present": cell.macro["target_present"],
            }
        )
    return rows


def record_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """Per reputation cell, the records each platform ended with in each memory set."""
    return [
        {
            "experiment": experiment,
            "cell": name,
            "scope": cell.config.reputation_scope,
            "mechanism": cell.config.market.reputation_in_use.mechanism,
            **record_distribution(cell.rows, cell.config),
        }
        for experiment, members in cells.items()
        for name, cell in members.items()
        if condition(cell.config.condition).reputation
    ]


def identical_notes(cells: dict[str, dict[str, Cell]]) -> list[str]:
    """One sentence per group of cells of one experiment whose episodes are identical, with
    the reason where the records show it."""
    notes = []
    for experiment, members in cells.items():
        for names in identical_groups({n: c.rows for n, c in members.items()}):
            group = [members[n] for n in names]
            said = f"{experiment}: {' and '.join(names)} are identical"
            window = group[0].config.market.memory_window
            most = max(
                (record_distribution(c.rows, c.config).get("max", 0) for c in group), default=0
            )
            if all(condition(c.config.condition).reputation for c in group) and most <= window:
                said += (
                    f": the mechanism never acted (no platform's history in any memory set "
                    f"passed W = {window} records; the most was {most})"
                )
            else:
                said += ": their settings never changed an episode"
            notes.append(said)
    return notes
