"""Figures of the dynamic-market experiments, beyond the paper: which presentation
adaptive platforms settle on, and whether a candid late entrant wins attention, under each
reputation mechanism; with the user's target purchase and regret beside them.

Rates carry 95% intervals over seeds and the unit a cell's episodes depend on together
(``recmarket.analysis.contrasts.memory_unit``): requests without reputation, the memory set
under it, and the whole domain where platforms learn from every stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from recmarket.analysis.bootstrap import Interval, difference, interval, mean_of
from recmarket.analysis.contrasts import is_target_purchase, rate
from recmarket.analysis.dynamics import entrant_top1_share, proposal_share, round_blocks
from recmarket.analysis.shares import top1_share
from recmarket.catalogue.policies import PAPER_POLICIES
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.data import Cell, Figure, find
from recmarket.report.drawing import ARMS, colour, level
from recmarket.report.ticks import display_names


def _regret(row: Mapping[str, Any]) -> float:
    return float(row["regret"])


def _outcomes(axes: Any, cells: list[Cell]) -> list[dict[str, Any]]:
    """Target purchase and regret per cell, with intervals, on two axes."""
    rows = []
    names = display_names([c.name for c in cells])
    for ax, measure, value, label in (
        (axes[0], "target_purchase", is_target_purchase, "target purchase"),
        (axes[1], "regret", _regret, "regret (utility of the best proposal minus the bought)"),
    ):
        intervals = [
            rate(
                [r for r in c.rows if r.get("regret") is not None],
                value,
                unit=memory_unit(c.config),
            )
            for c in cells
        ]
        estimates = [i.estimate for i in intervals]
        errors = [
            [e - i.low for e, i in zip(estimates, intervals, strict=True)],
            [i.high - e for e, i in zip(estimates, intervals, strict=True)],
        ]
        ax.bar(names, estimates, yerr=errors, capsize=3, color="#8172B2")
        ax.set_title(label, fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        rows += [
            _row(name, "all", measure, i.estimate, (i.low, i.high, i.method))
            for name, i in zip(names, intervals, strict=True)
        ]
    return rows


def _band(ax: Any, found: list[Interval], label: str) -> None:
    """A share over round blocks as a line, its 95% interval as a band around it."""
    xs = range(len(found))
    estimates = [i.estimate for i in found]
    (line,) = ax.plot(xs, estimates, marker="o", ms=3, label=label, color=colour(label))
    lows, highs = [i.low for i in found], [i.high for i in found]
    ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.2)


def _interval(found: Interval) -> tuple[float, float, str]:
    return found.low, found.high, found.method


def _row(
    cell: str, rounds: str, measure: str, value: float | None, interval: tuple = ("", "", "")
) -> dict[str, Any]:
    """One row of a figure's table (one shape for the blocks and the intervals)."""
    low, high, method = interval
    return {
        "cell": cell,
        "rounds": rounds,
        "measure": measure,
        "estimate": "" if value is None else value,
        "low": low,
        "high": high,
        "interval": method,
    }


def adaptation(cells: list[Cell]) -> Figure:
    """Strategic adaptation: which policies adaptive platforms settle on over round blocks,
    and what users get from it (target purchase and regret, with 95% intervals)."""
    fig = plt.figure(figsize=(3.0 * max(len(cells), 2), 6.0))
    grid = fig.add_gridspec(2, max(len(cells), 2))
    rows: list[dict[str, Any]] = []
    names = display_names([c.name for c in cells])
    for column, cell in enumerate(cells):
        ax = fig.add_subplot(grid[0, column])
        blocks = round_blocks(cell.config.episodes.requests)
        for family in PAPER_POLICIES:
            found = [level(cell, proposal_share(family, lo, hi), 100) for lo, hi in blocks]
            _band(ax, found, family)
            rows += [
                _row(cell.name, f"{lo}-{hi}", f"{family} share", i.estimate, _interval(i))
                for (lo, hi), i in zip(blocks, found, strict=True)
            ]
        ax.set_xticks(range(0, len(blocks), 3), [str(lo) for lo, _ in blocks][::3], fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(names[column], fontsize=9)
        ax.set_xlabel("first round of block", fontsize=8)
    fig.axes[0].set_ylabel("share of adaptive proposals")
    fig.axes[0].legend(frameon=False, fontsize=7, loc="upper left")
    half = max(len(cells), 2) // 2
    rows += _outcomes((fig.add_subplot(grid[1, :half]), fig.add_subplot(grid[1, half:])), cells)
    fig.tight_layout()
    return fig, rows


def entry(cells: list[Cell]) -> Figure:
    """Platform entry: how much Top-1 attention a late entrant wins over round blocks, and
    what users get (target purchase and regret, with 95% intervals)."""
    fig, (top, purchase, regret) = plt.subplots(1, 3, figsize=(12.0, 3.6))
    rows: list[dict[str, Any]] = []
    for cell, name in zip(cells, display_names([c.name for c in cells]), strict=True):
        entrants = cell.config.market.entrant_ids
        blocks = round_blocks(cell.config.episodes.requests)
        for entrant in entrants:
            found = [level(cell, entrant_top1_share(entrant, lo, hi), 100) for lo, hi in blocks]
            _band(ax=top, found=found, label=f"{name} ({entrant})" if len(entrants) > 1 else name)
            rows += [
                _row(cell.name, f"{lo}-{hi}", f"{entrant} Top-1 share", i.estimate, _interval(i))
                for (lo, hi), i in zip(blocks, found, strict=True)
            ]
        top.set_xticks(range(len(blocks)), [str(lo) for lo, _ in blocks])
    fair = 1 / (cells[0].config.market.n_platforms + 1) if cells else 0.0
    top.axhline(fair, color="grey", linestyle=":", linewidth=1, label="1/(N+1)")
    top.set_xlabel("first round of block", fontsize=8)
    top.set_ylabel("entrant's Top-1 share")
    top.tick_params(axis="x", labelsize=7, rotation=45)
    top.legend(frameon=False, fontsize=7)
    top.set_title("Entrant attention", fontsize=9)
    rows += _outcomes((purchase, regret), cells)
    fig.tight_layout()
    return fig, rows


def _norep_beside(cells: list[Cell], treated: Cell) -> Cell:
    """The NoRep cell played on ``treated``'s requests."""

    def beside(config: RunConfig) -> bool:
        return config.condition == "no-rep" and config.episodes == treated.config.episodes

    return find(cells, f"condition no-rep on the requests of {treated.name}", beside)


def long_histories(cells: list[Cell]) -> Figure:
    """Accountability over long histories: LocalRep minus NoRep in Exaggeration's Top-1 share
    and in target purchase, per memory scope, with 95% intervals over seeds and memory
    sets."""
    treated = [c for c in cells if c.config.condition == "local-rep"]
    # below full scale NoRep is played on each memory's schedule (experiments/schedule.py):
    # each arm is measured against the copy that shares its requests
    bases = {id(c): _norep_beside(cells, c) for c in treated}
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.2))
    rows = []
    measures = (
        ("Exaggeration Top-1 share", top1_share("exaggeration")),
        ("target purchase", mean_of(is_target_purchase, 100.0)),
    )
    for ax, (measure, metric) in zip(axes, measures, strict=True):
        for i, cell in enumerate(treated):
            base = bases[id(cell)]
            unit = coarsest([memory_unit(base.config), memory_unit(cell.config)])
            iv = interval([base.rows, cell.rows], metric, difference, unit)
            error = [[iv.estimate - iv.low], [iv.high - iv.estimate]]
            ax.errorbar(i, iv.estimate, yerr=error, fmt="s", capsize=3, color=ARMS["LocalRep"])
            interval_cells = (iv.low, iv.high, iv.method)
            rows.append(
                _row(cell.name, "all", f"{measure}, minus NoRep (pp)", iv.estimate, interval_cells)
            )
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xticks(range(len(treated)), display_names([c.name for c in treated]), fontsize=8)
        ax.set_title(f"{measure}: LocalRep minus NoRep (pp)", fontsize=9)
    fig.tight_layout()
    return fig, rows
