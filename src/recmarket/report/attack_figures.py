"""The figure and table of the reputation-attacks experiment: each attacker's gain
in Top-1 share and purchase share over the same seat playing honestly, under each defence,
with 95% intervals (``recmarket.analysis.attacks`` says how they are made)."""

from __future__ import annotations

from collections import Counter

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from recmarket.analysis.attacks import attack_table
from recmarket.report.data import Cell, Figure, MissingCell


def attacks(cells: list[Cell]) -> Figure:
    """Reputation under attack: each attacker's gain over the same seat playing honestly,
    under each defence, with 95% intervals."""
    rows = attack_table([(c.name, c.config, c.rows) for c in cells])
    paired = [r for r in rows if not r["note"]]  # the others have no honest twin
    if not paired:
        raise MissingCell("no attack cell with an honest cell of the same defence")
    shared = Counter((r["attack"], r["defence"]) for r in paired)

    def bar(row: dict) -> str:  # the attack, and its cell where two cells share both
        attack = row["attack"]
        return attack if shared[attack, row["defence"]] == 1 else f"{attack} ({row['cell']})"

    names = list(dict.fromkeys(bar(r) for r in paired))
    defences = list(dict.fromkeys(r["defence"] for r in paired))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=False)
    width = 0.8 / len(defences)
    for ax, measure, title in (
        (axes[0], "gain_top1", "gain in Top-1 share"),
        (axes[1], "gain_purchase", "gain in purchase share"),
    ):
        for d, name in enumerate(defences):
            found = {bar(r): r for r in paired if r["defence"] == name}
            x = np.arange(len(names)) + d * width
            values = [found[a][measure] if a in found else np.nan for a in names]
            low = [
                v - found[a][f"{measure}_low"] if a in found else 0
                for a, v in zip(names, values, strict=True)
            ]
            high = [
                found[a][f"{measure}_high"] - v if a in found else 0
                for a, v in zip(names, values, strict=True)
            ]
            ax.bar(x, values, width, label=name, yerr=[low, high], capsize=2)
        ax.axhline(0, color="#444", linewidth=0.8)
        ax.set_xticks(np.arange(len(names)) + width * (len(defences) - 1) / 2, names, fontsize=8)
        ax.set_title(title)
    axes[0].set_ylabel("attack cell minus honest cell")
    axes[1].legend(frameon=False, fontsize=7, title="defence", title_fontsize=7)
    fig.tight_layout()
    return fig, rows
