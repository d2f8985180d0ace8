"""The figure and table of the copy-adoption experiment: for each copy strategy, the
adopters' Top-1 gain per seat as adoption rises in its order (P1 first), one line per
condition, with 95% intervals (``recmarket.analysis.copy_adoption`` says how they are
made); the table holds every cell, those adopting out of order too."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from recmarket.analysis.copy_adoption import NO_COPY, adoption_table
from recmarket.report.data import Cell, Figure, MissingCell


def copy_adoption(cells: list[Cell]) -> Figure:
    """Rewritten listings: the adopters' Top-1 gain per seat over the same seats when none
    rewrites, against the number of adopting seats, one panel per copy strategy."""
    rows = adoption_table([(c.name, c.config, c.rows) for c in cells])
    paired = [r for r in rows if "adopter_gain" in r and r["in_order"]]
    if not paired:
        raise MissingCell("no adoption cell with a cell of the same condition where none rewrites")
    strategies = sorted({r["strategy"] for r in paired} - {NO_COPY})
    lines = list(dict.fromkeys((r["condition"], r["schedule"]) for r in paired))
    several = {c for c, _ in lines if sum(c == d for d, _ in lines) > 1}
    fig, axes = plt.subplots(
        1, len(strategies), figsize=(3.8 * len(strategies), 3.4), sharey=True, squeeze=False
    )
    for ax, strategy in zip(axes[0], strategies, strict=True):
        for offset, (name, plan) in enumerate(lines):
            line = sorted(
                (
                    r
                    for r in paired
                    if r["strategy"] == strategy and (r["condition"], r["schedule"]) == (name, plan)
                ),
                key=lambda r: r["adopters"],
            )
            if not line:
                continue
            x = [r["adopters"] + 0.06 * (offset - (len(lines) - 1) / 2) for r in line]
            y = [r["adopter_gain"] for r in line]
            err = [
                [r["adopter_gain"] - r["adopter_gain_low"] for r in line],
                [r["adopter_gain_high"] - r["adopter_gain"] for r in line],
            ]
            label = f"{name} ({plan})" if name in several else name
            ax.errorbar(x, y, yerr=err, marker="o", markersize=3, capsize=2, label=label)
        ax.axhline(0, color="#444", linewidth=0.8)
        ax.set_title(strategy)
        ax.set_xlabel("adopting seats")
    axes[0][0].set_ylabel("Top-1 share gain per adopter")
    axes[0][-1].legend(frameon=False, fontsize=7, title="condition", title_fontsize=7)
    fig.tight_layout()
    return fig, rows
