"""What the Fig. 7 design rows rest on: Exaggeration's label mix beside the Exaggeration
Top-1 contrast it produces, at each Low threshold an experiment ran (label-counterfactual).

A Mixed record lowers belief in an exaggerated claim less than a Low one does
(``ranker.label_credibility``: Appendix C.4's Mixed is a limitation omitted), so the contrast
moves with Exaggeration's Mixed and Low shares together; the table puts them side by side.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from recmarket.analysis.bootstrap import Interval, difference, interval
from recmarket.analysis.shares import LABELS, label_share, top1_share
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.data import Cell, Figure, find
from recmarket.report.drawing import ARMS, bars, level


def label_counterfactual(cells: list[Cell]) -> Figure:
    """Beside Fig. 7: at each Low threshold, Exaggeration's labels under LocalRep and the
    change LocalRep makes to its Top-1 share, with 95% intervals."""
    thresholds = sorted({c.config.agents.update.low_gap for c in cells})
    fig, (mix_ax, move_ax) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    rows: list[dict[str, Any]] = []
    mixes: dict[str, list[Interval]] = {label: [] for label in LABELS}
    for gap in thresholds:
        base, treated = (_arm(cells, gap, condition) for condition in ("no-rep", "local-rep"))
        shares = {label: level(treated, label_share("exaggeration", label)) for label in LABELS}
        for label in LABELS:
            mixes[label].append(shares[label])
        unit = coarsest([memory_unit(base.config), memory_unit(treated.config)])
        move = interval([base.rows, treated.rows], top1_share("exaggeration"), difference, unit)
        rows.append(
            {
                "low_gap": gap,
                **{f"exaggeration_{label}": round(shares[label].estimate, 2) for label in LABELS},
                **{f"exaggeration_{label}_ci": _span(shares[label]) for label in LABELS},
                "exaggeration_top1_change": round(move.estimate, 2),
                "low": round(move.low, 2),
                "high": round(move.high, 2),
                "interval": move.method,
            }
        )
    xs = np.arange(len(thresholds))
    bars(mix_ax, [f"low_gap {g:g}" for g in thresholds], mixes)
    mix_ax.set_ylabel("% of Exaggeration's records")
    mix_ax.set_title("Exaggeration's labels (LocalRep)", fontsize=9)
    estimates = np.array([r["exaggeration_top1_change"] for r in rows])
    errors = [estimates - [r["low"] for r in rows], [r["high"] for r in rows] - estimates]
    move_ax.errorbar(xs, estimates, yerr=errors, fmt="s", capsize=3, color=ARMS["LocalRep"])
    move_ax.axhline(0, color="k", lw=0.6)
    move_ax.set_xticks(xs, [f"low_gap {g:g}" for g in thresholds])
    move_ax.set_ylabel("pp")
    move_ax.set_title("Exaggeration Top-1 share, LocalRep minus NoRep", fontsize=9)
    fig.tight_layout()
    return fig, rows


def _span(found: Interval) -> str:
    return f"[{found.low:.1f}, {found.high:.1f}]"


def _arm(cells: list[Cell], gap: float, condition: str) -> Cell:
    return find(
        cells,
        f"update.low_gap {gap:g} under {condition}",
        lambda c: c.agents.update.low_gap == gap and c.condition == condition,
    )
