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

from recmarket.analysis.bootstrap import Interval, Metric, Row, mean_of
from recmarket.analysis.contrasts import contrast, is_target_purchase
from recmarket.analysis.shares import (
    LABELS,
    label_share,
    same_item_share,
    same_item_win_share,
    top1_in_rounds,
    top1_share,
)
from recmarket.catalogue.conditions import condition
from recmarket.catalogue.policies import PAPER_POLICIES
from recmarket.report.attack_figures import attacks
from recmarket.report.benchmark_figures import gain_by_share, robustness_frontier
from recmarket.report.benchmark_worst import worst_case_ranking
from recmarket.report.copy_figures import copy_adoption
from recmarket.report.data import Cell, Figure, find
from recmarket.report.drawing import ARMS, bars, columns, level, yerr
from recmarket.report.dynamic_figures import adaptation, entry, long_histories
from recmarket.report.frontier_figures import frontier
from recmarket.report.label_figures import label_counterfactual
from recmarket.report.ticks import display_names

Cells = list[Cell]
STAGES = (
    ("target_present", "Present"),
    ("target_shortlisted", "Shortlist"),
    ("target_top1", "Top-1"),
    ("target_purchased", "Purchase"),
)
BLOCKS = ((1, 50), (51, 100), (101, 200), (201, 400))


def _column(name: str) -> Callable[[Row], float]:
    """A row's value of one 0/1 column, as a number."""
    return lambda r: float(r[name])


def _stage(name: str) -> Metric:
    return mean_of(_column(name))


def funnel_by_condition(cells: Cells) -> Figure:
    """Fig. 3: where the target is lost, stage by stage, under Platform-Centric access and
    under the user agent (J = K), with 95% intervals."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    series = {
        condition(c.config.condition).label: [level(c, _stage(k)) for k, _ in STAGES] for c in cells
    }
    bars(ax, [label for _, label in STAGES], series)
    ax.set_ylabel("share of episodes (macro, 95% CI)")
    ax.set_title("Stage-wise target outcomes")
    rows = [
        {"condition": name, "stage": stage, **columns(found)}
        for name, found_all in series.items()
        for (stage, _), found in zip(STAGES, found_all, strict=True)
    ]
    return fig, rows


def _sweep(cells: Cells, key: Callable[[Cell], int], axis: str) -> Figure:
    ordered = sorted(cells, key=key)
    xs = [key(c) for c in ordered]
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    for stage, label in STAGES:
        found = [level(c, _stage(stage)) for c in ordered]
        ax.errorbar(
            xs, [i.estimate for i in found], yerr=yerr(found), marker="o", capsize=3, label=label
        )
        rows += [{axis: x, "stage": stage, **columns(i)} for x, i in zip(xs, found, strict=True)]
    ax.set_xticks(xs)
    ax.set_xlabel(axis)
    ax.set_ylabel("share of episodes (macro, 95% CI)")
    ax.legend(frameon=False, fontsize=8)
    return fig, rows


def n_sweep(cells: Cells) -> Figure:
    """Fig. 4: how the target's stage-wise outcomes move as the market grows from N
    platforms, with 95% intervals."""
    fig, rows = _sweep(cells, lambda c: c.config.market.n_platforms, "N")
    fig.axes[0].set_title("Market expansion")
    return fig, rows


def k_sweep(cells: Cells) -> Figure:
    """Fig. 5: how the target's stage-wise outcomes move with the shortlist's capacity K,
    with 95% intervals."""
    fig, rows = _sweep(cells, lambda c: c.config.market.shortlist_k, "K")
    fig.axes[0].set_title("Shortlist capacity")
    return fig, rows


DECISIONS = (
    ("target purchase", "target_purchased"),
    ("off-target purchase", "off_target_purchase"),
    ("no purchase", "no_purchase"),
)


def decision_composition(cells: Cells) -> Figure:
    """Fig. 6: what users decide when every platform presents the same way (NoRep), with
    95% intervals."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    names = display_names([c.name for c in cells])
    series = {label: [level(c, _stage(column)) for c in cells] for label, column in DECISIONS}
    bars(ax, names, series)
    ax.set_ylabel("share of episodes (macro, 95% CI)")
    ax.set_title("Decisions under homogeneous policies (NoRep)")
    rows = [
        {"cell": name, "part": label, **columns(found)}
        for label, found_all in series.items()
        for name, found in zip(names, found_all, strict=True)
    ]
    return fig, rows


def top1_by_family(cells: Cells) -> Figure:
    """Fig. 7: which policy family wins the Top-1 slot in the equal market, without and with
    reputation, with 95% intervals."""
    arms = {
        "NoRep": _market(cells, "equal", "no-rep"),
        "LocalRep": _market(cells, "equal", "local-rep"),
    }
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    series = {p: [level(a, top1_share(p), 100) for a in arms.values()] for p in PAPER_POLICIES}
    bars(ax, list(arms), series)
    ax.set_ylabel("share of Top-1 (macro, 95% CI)")
    ax.set_title("Top-1 attention by policy family")
    rows = [
        {"arm": arm, "policy": p, **columns(found[i])}
        for p, found in series.items()
        for i, arm in enumerate(arms)
    ]
    return fig, rows


def purchase_by_composition(cells: Cells) -> Figure:
    """Fig. 8: how often users buy the target without and with reputation in each market
    composition, with 95% intervals of each arm and of their difference."""
    compositions = ("equal", "balanced-exaggeration", "strict-exaggeration")
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    for i, comp in enumerate(compositions):
        a, b = _market(cells, comp, "no-rep"), _market(cells, comp, "local-rep")
        diff = contrast(a.rows, b.rows, is_target_purchase)
        arms = (level(a, _stage("target_purchased")), level(b, _stage("target_purchased")))
        _arm_pair(ax, i, arms, vertical=True)
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
                "no_rep": arms[0].estimate,
                "local_rep": arms[1].estimate,
                **columns(diff, "difference"),
            }
        )
    ax.set_xticks(range(3), compositions)
    ax.set_ylabel("target purchase (macro, 95% CI)")
    ax.set_title("Target purchase: NoRep (circles) vs LocalRep (squares)")
    return fig, rows


def _arm_pair(ax: Any, at: float, arms: tuple[Interval, Interval], *, vertical: bool) -> None:
    """NoRep (circle) and LocalRep (square) side by side at ``at``, each with its interval,
    joined by a line."""
    offsets = (-0.1, 0.1) if vertical else (-0.2, 0.2)
    for (name, marker), found, offset in zip(
        (("NoRep", "o"), ("LocalRep", "s")), arms, offsets, strict=True
    ):
        bar = yerr([found])
        if vertical:
            ax.errorbar(
                at + offset, found.estimate, yerr=bar, fmt=marker, color=ARMS[name], capsize=2
            )
        else:
            ax.errorbar(found.estimate, at, xerr=bar, fmt=marker, color=ARMS[name], capsize=2)
    ends = [found.estimate for found in arms]
    places = [at + o for o in offsets]
    ax.plot(*((places, ends) if vertical else (ends, places)), "k-", lw=0.8)


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


def robustness(cells: Cells) -> Figure:
    """Fig. 9 and Table 2: Exaggeration's Top-1 share and target purchase without and with
    reputation under each catalog rotation and evaluation-side variant, with 95%
    intervals."""
    based = [c for c in cells if c.config.condition == "no-rep"]
    pairs = list(zip(display_names([c.name for c in based]), based, strict=True))
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 1.4 + 0.45 * max(len(pairs), 4)))
    rows = []
    for i, (setting, a) in enumerate(pairs):
        b = _twin(cells, a)
        ex = (level(a, top1_share("exaggeration"), 100), level(b, top1_share("exaggeration"), 100))
        tp = (level(a, _stage("target_purchased")), level(b, _stage("target_purchased")))
        _arm_pair(left, i, ex, vertical=False)
        _arm_pair(right, i, tp, vertical=False)
        rows.append(
            {
                "setting": setting,
                "exaggeration_top1_norep": ex[0].estimate,
                "exaggeration_top1_localrep": ex[1].estimate,
                "delta_top1": ex[1].estimate - ex[0].estimate,
                "target_purchase_norep": tp[0].estimate,
                "target_purchase_localrep": tp[1].estimate,
                **columns(contrast(a.rows, b.rows, is_target_purchase), "difference"),
            }
        )
    for ax, title in ((left, "Exaggeration Top-1 share"), (right, "Target purchase")):
        ax.set_yticks(range(len(pairs)), [p[0] for p in pairs], fontsize=7)
        ax.set_title(f"{title} (95% CI)", fontsize=9)
    right.tick_params(labelleft=False)
    left.plot([], [], "o", color=ARMS["NoRep"], label="NoRep")
    left.plot([], [], "s", color=ARMS["LocalRep"], label="LocalRep")
    fig.legend(frameon=False, fontsize=8, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    return fig, rows


def reputation_scope(cells: Cells) -> Figure:
    """Fig. 10: Exaggeration's Top-1 share over the early round blocks under each reputation
    scope, with 95% intervals; blocks no user reached are left out."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    rows = []
    names = display_names([c.name for c in cells])
    dodge = 0.3 / max(len(cells), 1)  # series side by side within a block, not on one line
    for k, (cell, name) in enumerate(zip(cells, names, strict=True)):
        reached = []
        for at, (lo, hi) in enumerate(BLOCKS):
            episodes = sum(lo <= r["ord"] + 1 <= hi for r in cell.rows)
            found = level(cell, top1_in_rounds("exaggeration", lo, hi), 100)
            block = {"scope": name, "rounds": f"{lo}-{hi}", "episodes": episodes}
            rows.append(block | columns(found))
            if episodes:
                reached.append((at + (k - (len(cells) - 1) / 2) * dodge, found))
        ax.errorbar(
            [x for x, _ in reached],
            [found.estimate for _, found in reached],
            yerr=yerr([found for _, found in reached]),
            marker="o",
            capsize=3,
            label=name,
        )
    played = {r["rounds"] for r in rows if r["episodes"]}
    ticks = [(i, f"{lo}-{hi}") for i, (lo, hi) in enumerate(BLOCKS) if f"{lo}-{hi}" in played]
    ax.set_xticks([i for i, _ in ticks], [label for _, label in ticks])
    ax.set_xlabel("rounds (schedule order within a domain)")
    ax.set_ylabel("Exaggeration Top-1 share (95% CI)")
    ax.set_title("Reputation scope")
    ax.legend(frameon=False, fontsize=8)
    return fig, rows


def label_distribution(cells: Cells) -> Figure:
    """Fig. 11: which claim-reliability labels each policy family's purchases earned under
    LocalRep, with 95% intervals."""
    cell = _market(cells, "equal", "local-rep")
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    families = list(PAPER_POLICIES)
    series = {
        label: [level(cell, label_share(family, label), 100) for family in families]
        for label in LABELS
    }
    bars(ax, families, series)
    rows = [
        {
            "family": family,
            "label": label,
            "updates": sum(
                r["purchased_policy"] == family and bool(r["rep_label"]) for r in cell.rows
            ),
            **columns(found[i]),
        }
        for label, found in series.items()
        for i, family in enumerate(families)
    ]
    ax.set_ylabel("share of updates (95% CI)")
    ax.set_title("What the reputation memory learns (Local-12)")
    return fig, rows


def same_item(cells: Cells) -> Figure:
    """Fig. 12: how often the Top-1 item is one another platform also proposed, and how
    often Exaggeration wins those same-item comparisons, at low and full catalog overlap,
    with 95% intervals."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    names = display_names([c.name for c in cells])
    series = {
        "same-item comparisons": [level(c, same_item_share(), 100) for c in cells],
        "Exaggeration wins them": [
            level(c, same_item_win_share("exaggeration"), 100) for c in cells
        ],
    }
    bars(ax, names, series)
    ax.set_ylabel("share (95% CI)")
    ax.set_title("Presentation competition under NoRep")
    rows = [
        {"cell": name, "measure": measure, **columns(found)}
        for measure, found_all in series.items()
        for name, found in zip(names, found_all, strict=True)
    ]
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
    "reputation-benchmark": (
        ("reputation_benchmark", gain_by_share),
        ("reputation_frontier", robustness_frontier),
        ("reputation_worst_case", worst_case_ranking),
    ),
    "frontier": (("frontier", frontier),),
    "copy-adoption": (("copy_adoption", copy_adoption),),
    "label-counterfactual": (("fig07_label_counterfactual", label_counterfactual),),
}
