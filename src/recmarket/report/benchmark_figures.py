"""The reputation benchmark's figures: each attack's gain against the attackers' share under
every defence, and the robustness frontier (what a defence costs an honest market against
the worst gain an attacker keeps under it). ``recmarket.analysis.benchmark`` says how each
number and interval is made."""

from __future__ import annotations

import math
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from recmarket.analysis.benchmark import COLUMNS
from recmarket.analysis.worst_case import WORST_FOUND_COLUMNS
from recmarket.report.benchmark_worst import benchmark_rows
from recmarket.report.data import Cell, Figure, MissingCell


def _table(cells: list[Cell]) -> list[dict[str, Any]]:
    rows = benchmark_rows(cells)
    if not any(r["gain_top1"] != "" for r in rows):
        raise MissingCell("no attack cell with an honest cell of the same defence")
    return rows


def _error(row: dict[str, Any], name: str) -> tuple[float, float]:
    """The distances from an estimate down and up to its interval's ends (0 without one)."""
    value, low, high = (row[name], row[f"{name}_low"], row[f"{name}_high"])
    if "" in (value, low, high) or math.isnan(low):
        return 0.0, 0.0
    return value - low, high - value


def gain_by_share(cells: list[Cell]) -> Figure:
    """Reputation benchmark: each attack's gain in Top-1 share against the attackers' share
    of the seats, one line a defence, with 95% intervals."""
    rows = _table(cells)
    attacks = sorted({r["attack"] for r in rows})
    defences = sorted({r["defence"] for r in rows})
    columns = 3
    lines = math.ceil(len(attacks) / columns)
    fig, axes = plt.subplots(lines, columns, figsize=(12, 3.2 * lines), sharey=True, squeeze=False)
    colours = [plt.get_cmap("tab20")(i / 20) for i in range(20)]
    for ax, attack in zip(axes.flat, attacks, strict=False):
        for d, defence in enumerate(defences):
            found = sorted(
                (
                    r
                    for r in rows
                    if r["attack"] == attack and r["defence"] == defence and r["gain_top1"] != ""
                ),
                key=lambda r: r["attacker_share"],
            )
            if found:
                errors = list(zip(*(_error(r, "gain_top1") for r in found), strict=True))
                ax.errorbar(
                    [r["attacker_share"] for r in found],
                    [r["gain_top1"] for r in found],
                    yerr=errors,
                    marker="o",
                    markersize=3,
                    capsize=2,
                    linewidth=0.8,
                    color=colours[d % len(colours)],
                    label=defence,
                )
        ax.axhline(0, color="#444", linewidth=0.8)
        ax.set_title(attack, fontsize=9)
        ax.set_xlabel("attackers' share of seats", fontsize=8)
    for ax in axes.flat[len(attacks) :]:
        ax.axis("off")
    axes[0][0].set_ylabel("gain in Top-1 share")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, frameon=False, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig, [{c: r.get(c, "") for c in (*COLUMNS, *WORST_FOUND_COLUMNS)} for r in rows]


def robustness_frontier(cells: list[Cell]) -> Figure:
    """Reputation benchmark: what each defence costs an honest market in target purchase,
    against the largest gain any attack keeps under it at the largest attackers' share,
    with 95% intervals."""
    rows = [r for r in _table(cells) if r["gain_top1"] != ""]
    frontier = []
    for defence in sorted({r["defence"] for r in rows}):
        mine = [r for r in rows if r["defence"] == defence]
        top = max(r["attacker_share"] for r in mine)
        worst = max((r for r in mine if r["attacker_share"] == top), key=lambda r: r["gain_top1"])
        frontier.append(
            {
                "defence": defence,
                **{k: worst[k] for k in worst if k.startswith("honest_loss_target_purchase")},
                "worst_attack": worst["attack"],
                "attacker_share": top,
                **{k: worst[k] for k in ("gain_top1", "gain_top1_low", "gain_top1_high")},
            }
        )
    fig, ax = plt.subplots(figsize=(10, 4.8))
    colours = [plt.get_cmap("tab20")(i / 20) for i in range(20)]
    markers = "osD^v<>ph*"
    for i, row in enumerate(frontier):
        if row["honest_loss_target_purchase"] == "":
            continue
        ax.errorbar(
            row["honest_loss_target_purchase"],
            row["gain_top1"],
            xerr=[[e] for e in _error(row, "honest_loss_target_purchase")],
            yerr=[[e] for e in _error(row, "gain_top1")],
            marker=markers[i % len(markers)],
            color=colours[i % len(colours)],
            capsize=2,
            linewidth=0.8,
            label=f"{row['defence']} ({row['worst_attack']})",
        )
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.axvline(0, color="#444", linewidth=0.8)
    ax.set_xlabel("honest-market loss in target purchase (shared window minus defence)")
    ax.set_ylabel("largest attack gain in Top-1 share")
    ax.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig, frontier
