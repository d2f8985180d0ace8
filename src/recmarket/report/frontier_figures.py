"""The design-frontier figure: user welfare against concentration, and against the
Exaggeration share of Top-1 attention, one point per design with its intervals, the
non-dominated designs marked (``recmarket.analysis.frontier``)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from recmarket.analysis.frontier import frontier_table
from recmarket.report.data import Cell, Figure


def frontier(cells: list[Cell]) -> Figure:
    """The design frontier: target purchase against concentration and against Exaggeration's
    Top-1 share, each design with its 95% intervals; filled: not dominated."""
    rows = frontier_table([(c.name, c.config, c.rows) for c in cells])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, measure, label in (
        (axes[0], "hhi_top1", "HHI of Top-1 positions"),
        (axes[1], "exaggeration_top1", "Exaggeration's share of Top-1"),
    ):
        for row in rows:
            x, y = row[measure], row["target_purchase"]
            ax.errorbar(
                x,
                y,
                xerr=[[x - row[f"{measure}_low"]], [row[f"{measure}_high"] - x]],
                yerr=[[y - row["target_purchase_low"]], [row["target_purchase_high"] - y]],
                fmt="o",
                markersize=5,
                color="#C44E52" if not row["dominated"] else "#999999",
                mfc="#C44E52" if not row["dominated"] else "white",
                elinewidth=0.6,
            )
        ax.set_xlabel(label)
    axes[0].set_ylabel("target purchase (users' welfare)")
    axes[0].set_title(
        "filled red: no design serves users better at lower concentration", fontsize=8
    )
    fig.tight_layout()
    return fig, rows
