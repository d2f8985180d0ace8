"""The paper's figures (3-12) from the cells of a reproduce run.

Each experiment spec names the figure its cells feed; each function here takes the cells of
one figure, finds the ones it needs by their settings (their names are only labels), draws,
and returns the figure with the numbers it shows (saved beside it as a table). Statistics
come from ``recmarket.analysis``. A figure no run feeds is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from recmarket.analysis.bootstrap import Row
from recmarket.analysis.contrasts import contrast, is_target_purchase, rate
from recmarket.analysis.shares import (
    label_shares,
    same_item_rate,
    same_item_wins,
    top1_share_in_rounds,
)
from recmarket.conditions import condition
from recmarket.policies import PAPER_POLICIES
from recmarket.report.attack_figures import attacks
from recmarket.report.data import Cell, Figure, find
from recmarket.report.dynamic_figures import adaptation, colour, entry, long_histories
from recmarket.report.frontier_figures import frontier
from recmarket.report.label_figures import label_counterfactual

Cells = list[Cell]
STAGES = (
    ("target_present", "Present"),
    ("target_shortlisted", "Shortlist"),
    ("target_top1", "Top-1"),
    ("target_purchased", "Purchase"),
)
BLOCKS = ((1, 50), (51, 100), (101, 200), (201, 400))


def _bars(ax: Any, groups: list[str], series: dict[str, list[float]]) -> None:
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series.items()):
        ax.bar(np.arange(len(groups)) + i * width, values, width, label=label, color=colour(label))
    ax.set_xticks(np.arange(len(groups)) + width * (len(series) - 1) / 2, groups)
    ax.legend(frameon=False, fontsize=8)


def funnel_by_condition(cells: Cells) -> Figure:
    """Fig. 3: stage-wise target outcomes, Platform-Centric vs user agent (J = K)."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    series = {condition(c.config.condition).label: [c.macro[k] for k, _ in STAGES] for c in cells}
    _bars(ax, [label for _, label in STAGES], series)
    ax.set_ylabel("share of episodes (macro)")
    ax.set_title("Stage-wise target outcomes")
    rows = [
        {"condition": n, **dict(zip([s for s, _ in STAGES], v, strict=True))}
        for n, v in series.items()
    ]
    return fig, rows


def _column(name: str) -> Callable[[Row], float]:
    """A row's value of one 0/1 column, as a number."""
    return lambda r: float(r[name])


def _sweep(cells: Cells, key: Callable[[Cell], int], axis: str) -> Figure:
    ordered = sorted(cells, key=key)
    xs = [key(c) for c in ordered]
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    for stage, label in STAGES:
        intervals = [rate(c.rows, _column(stage)) for c in ordered]
        y = [i.estimate for i in intervals]
        err = [
            [v - i.low for v, i in zip(y, intervals, strict=True)],
            [i.high - v for v, i in zip(y, intervals, strict=True)],
        ]
        ax.errorbar(xs, y, yerr=err, marker="o", capsize=3, label=label)
        rows += [
            {
                axis: x,
                "stage": stage,
                "estimate": i.estimate,
                "low": i.low,
                "high": i.high,
                "interval": i.method,
            }
            for x, i in zip(xs, intervals, strict=True)
        ]
    ax.set_xticks(xs)
    ax.set_xlabel(axis)
    ax.set_ylabel("share of episodes (macro, 95% CI)")
    ax.legend(frameon=False, fontsize=8)
    return fig, rows


def n_sweep(cells: Cells) -> Figure:
    """Fig. 4: market expansion."""
    fig, rows = _sweep(cells, lambda c: c.config.market.n_platforms, "N")
    fig.axes[0].set_title("Market expansion")
    return fig, rows


def k_sweep(cells: Cells) -> Figure:
    """Fig. 5: shortlist capacity."""
    fig, rows = _sweep(cells, lambda c: c.config.market.shortlist_k, "K")
    fig.axes[0].set_title("Shortlist capacity")
    return fig, rows


def decision_composition(cells: Cells) -> Figure:
    """Fig. 6: decision composition under homogeneous NoRep policies."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    bottom = np.zeros(3)
    names = [c.name for c in cells]
    parts = (
        ("target_purchased", "target purchase"),
        ("off_target_purchase_rate", "off-target"),
        ("no_purchase_rate", "no purchase"),
    )
    for key, label in parts:
        values = np.array([c.macro[key] for c in cells])
        ax.bar(names, values, bottom=bottom, label=label)
        bottom += values
        rows += [{"cell": n, "part": label, "share": v} for n, v in zip(names, values, strict=True)]
    ax.set_ylabel("share of episodes (macro)")
    ax.set_title("Decisions under homogeneous policies (NoRep)")
    ax.legend(frameon=False, fontsize=8)
    return fig, rows


def top1_by_family(cells: Cells) -> Figure:
    """Fig. 7: Top-1 attention by policy family, equal market, NoRep vs LocalRep."""
    arms = {
        "NoRep": _market(cells, "equal", "no-rep"),
        "LocalRep": _market(cells, "equal", "local-rep"),
    }
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    series = {
        p: [a.macro["top1_share_by_policy"][p] for a in arms.values()] for p in PAPER_POLICIES
    }
    _bars(ax, list(arms), series)
    ax.set_ylabel("share of Top-1 (macro)")
    ax.set_title("Top-1 attention by policy family")
    return fig, [
        {"arm": arm, "policy": p, "share": v[i]}
        for p, v in series.items()
        for i, arm in enumerate(arms)
    ]


def purchase_by_composition(cells: Cells) -> Figure:
    """Fig. 8: target purchase, NoRep vs LocalRep, with cluster-bootstrap intervals of the
    difference."""
    compositions = ("equal", "balanced-exaggeration", "strict-exaggeration")
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    for i, comp in enumerate(compositions):
        a, b = _market(cells, comp, "no-rep"), _market(cells, comp, "local-rep")
        diff = contrast(a.rows, b.rows, is_target_purchase)
        ax.plot(
            [i - 0.1, i + 0.1],
            [a.macro["target_purchased"], b.macro["target_purchased"]],
            "k-",
            lw=0.8,
        )
        ax.plot(i - 0.1, a.macro["target_purchased"], "o", color="#DD8452")
        ax.plot(i + 0.1, b.macro["target_purchased"], "s", color="#55A868")
        ax.annotate(
            f"{diff.estimate:+.1%}\n[{diff.low:+.1%}, {diff.high:+.1%}]",
            (i, 0.88),
            xycoords=("data", "axes fraction"),
            ha="center",
            fontsize=7,
        )
        rows.append(
            {
                "composition": comp,
                "no_rep": a.macro["target_purchased"],
                "local_rep": b.macro["target_purchased"],
                **_diff(diff),
            }
        )
    ax.set_xticks(range(3), compositions)
    ax.set_ylabel("target purchase (macro)")
    ax.set_title("Target purchase: NoRep (circles) vs LocalRep (squares)")
    return fig, rows


def _market(cells: Cells, composition: str, condition: str) -> Cell:
    return find(
        cells,
        f"composition {composition} under {condition}",
        lambda c: c.market.composition == composition and c.condition == condition,
    )


def _twin(cells: Cells, cell: Cell) -> Cell:
    """The LocalRep cell with every other setting of a NoRep cell."""
    twin = cell.config.model_copy(update={"condition": "local-rep"})
    return find(cells, f"the settings of {cell.name} under local-rep", lambda c: c == twin)


def _diff(interval: Any) -> dict[str, Any]:
    return {
        "difference": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "interval": interval.method,
    }


def robustness(cells: Cells) -> Figure:
    """Fig. 9 and Table 2: rotations and evaluation-side variants, NoRep vs LocalRep."""
    pairs = [
        (c.name.removesuffix("/no-rep").removesuffix("/condition=no-rep"), c, _twin(cells, c))
        for c in cells
        if c.config.condition == "no-rep"
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.4))
    rows = []
    for i, (setting, a, b) in enumerate(pairs):
        ex = (
            a.macro["top1_share_by_policy"]["exaggeration"],
            b.macro["top1_share_by_policy"]["exaggeration"],
        )
        tp = (a.macro["target_purchased"], b.macro["target_purchased"])
        left.plot(ex, [i, i], "k-", lw=0.8)
        left.plot(ex[0], i, "o", color="#DD8452")
        left.plot(ex[1], i, "s", color="#55A868")
        right.plot(tp, [i, i], "k-", lw=0.8)
        right.plot(tp[0], i, "o", color="#DD8452")
        right.plot(tp[1], i, "s", color="#55A868")
        diff = contrast(a.rows, b.rows, is_target_purchase)
        rows.append(
            {
                "setting": setting,
                "exaggeration_top1_norep": ex[0],
                "exaggeration_top1_localrep": ex[1],
                "delta_top1": ex[1] - ex[0],
                "target_purchase_norep": tp[0],
                "target_purchase_localrep": tp[1],
                **_diff(diff),
            }
        )
    for ax, title in ((left, "Exaggeration Top-1 share"), (right, "Target purchase")):
        ax.set_yticks(range(len(pairs)), [p[0] for p in pairs], fontsize=7)
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig, rows


def reputation_scope(cells: Cells) -> Figure:
    """Fig. 10: Exaggeration's Top-1 share over early round blocks, by reputation scope."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    labels = [f"{lo}-{hi}" for lo, hi in BLOCKS]
    for cell in cells:
        name = cell.name
        shares = []
        for lo, hi in BLOCKS:
            share = top1_share_in_rounds(cell.rows, "exaggeration", lo, hi) / 100
            shares.append(share)
            episodes = sum(lo <= r["ord"] + 1 <= hi for r in cell.rows)
            rows.append(
                {
                    "scope": name,
                    "rounds": f"{lo}-{hi}",
                    "exaggeration_top1": share,
                    "episodes": episodes,
                }
            )
        ax.plot(labels, shares, marker="o", label=name)
    ax.set_xlabel("rounds (schedule order within a domain)")
    ax.set_ylabel("Exaggeration Top-1 share")
    ax.set_title("Reputation scope")
    ax.legend(frameon=False, fontsize=8)
    return fig, rows


def label_distribution(cells: Cells) -> Figure:
    """Fig. 11: claim-reliability labels among purchase-grounded updates, by family."""
    cell = _market(cells, "equal", "local-rep")
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    series: dict[str, list[float]] = {label: [] for label in ("high", "mixed", "low")}
    families = list(PAPER_POLICIES)
    for family in families:
        shares = label_shares(cell.rows, family)
        updates = sum(r["purchased_policy"] == family and bool(r["rep_label"]) for r in cell.rows)
        for label in series:
            share = 0.0 if np.isnan(shares[label]) else shares[label] / 100
            series[label].append(share)
            rows.append({"family": family, "label": label, "share": share, "updates": updates})
    _bars(ax, families, series)
    ax.set_ylabel("share of updates")
    ax.set_title("What the reputation memory learns (Local-12)")
    return fig, rows


def same_item(cells: Cells) -> Figure:
    """Fig. 12: same-item comparisons at Top-1 and who wins them, rho 0.1 vs 1.0."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows: list[dict[str, Any]] = []
    for cell in cells:
        wins = same_item_wins(cell.rows, "exaggeration")
        rows.append(
            {
                "cell": cell.name,
                "same_item_rate": same_item_rate(cell.rows) / 100,
                "exaggeration_wins": 0.0 if np.isnan(wins) else wins / 100,
            }
        )
    _bars(
        ax,
        [r["cell"] for r in rows],
        {
            "same-item comparisons": [r["same_item_rate"] for r in rows],
            "Exaggeration wins them": [r["exaggeration_wins"] for r in rows],
        },
    )
    ax.set_title("Presentation competition under NoRep")
    return fig, rows


# A spec's ``figure`` -> the figures its cells feed (file stem, drawing function).
FIGURES: dict[str, tuple[tuple[str, Callable[[Cells], Figure]], ...]] = {
    "funnel": (("fig03_funnel", funnel_by_condition),),
    "n_sweep": (("fig04_market_expansion", n_sweep),),
    "k_sweep": (("fig05_shortlist_capacity", k_sweep),),
    "decisions": (("fig06_homogeneous_decisions", decision_composition),),
    "accountability": (
        ("fig07_top1_by_family", top1_by_family),
        ("fig08_purchase_by_composition", purchase_by_composition),
        ("fig11_label_distribution", label_distribution),
    ),
    "robustness": (("fig09_robustness", robustness),),
    "accountability-long": (("acc_long_histories", long_histories),),
    "scope": (("fig10_reputation_scope", reputation_scope),),
    "overlap": (("fig12_same_item", same_item),),
    "adaptation": (("dyn1_strategic_adaptation", adaptation),),
    "entry": (("dyn2_platform_entry", entry),),
    "attacks": (("attacks", attacks),),
    "frontier": (("frontier", frontier),),
    "label-counterfactual": (("fig07_label_counterfactual", label_counterfactual),),
}
