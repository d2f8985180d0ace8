"""The paper's reported numbers beside this project's measurements of them.

``paper_numbers.toml`` holds every number the paper reports in its results (Section 4,
Figures 3-12, Table 2, A.2, A.5, A.6, A.8), where it is reported and how it is measured
here. ``compare`` measures each on the cells a reproduce ran and says whether a contrast
points the same way. Nothing here judges the simulator by the paper or the paper by the
simulator: the table reports both, whatever they say.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from recmarket.analysis.shares import (
    label_shares,
    same_item_wins,
    target_copy_share,
    top1_share_in_rounds,
)
from recmarket.config import RunConfig
from recmarket.report.data import Cell

NUMBERS = Path(__file__).with_name("paper_numbers.toml")


class PaperNumber(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    section: str
    what: str
    paper: float
    measure: Literal["level", "difference", "ratio", "spread"]
    about: bool = False  # the paper gives the number only in words
    tolerance: float = 0.0  # pp within which a claimed "no change" counts as agreeing
    experiment: str | None = None  # None: no counterpart in the offline model
    # Cells by the settings that single them out in their experiment ("market.rho" = 1.0)
    cell: dict[str, Any] | None = None
    base: dict[str, Any] | None = None
    cells: tuple[dict[str, Any], ...] = ()
    metric: str | None = None


def paper_numbers(path: Path = NUMBERS) -> list[PaperNumber]:
    return [PaperNumber(**entry) for entry in tomllib.loads(path.read_text())["number"]]


def metric_value(cell: Cell, metric: str) -> float:
    """A cell's value of one named metric (percent, except means of counts)."""
    kind, _, arg = metric.partition(":")
    rows = cell.rows
    if kind == "rate":
        return 100.0 * float(cell.macro[arg])
    if kind == "mean":
        return float(cell.macro[f"mean_{arg}"])
    if kind == "top1_share":
        return 100.0 * float(cell.macro["top1_share_by_policy"][arg])
    if kind == "max_top1_share":
        return 100.0 * max(cell.macro["top1_share_by_policy"].values())
    if kind == "pool_share":
        return target_copy_share(rows)
    if kind == "label_share":  # pooled across domains, as in Fig. 11
        policy, label = arg.split(":")
        return label_shares(rows, policy)[label]
    if kind == "same_item_wins":
        return same_item_wins(rows, arg)
    if kind == "block_top1":  # rounds in schedule order within a domain, as in Fig. 10
        policy, block = arg.split(":")
        first, last = (int(x) for x in block.split("-"))
        return top1_share_in_rounds(rows, policy, first, last)
    raise ValueError(f"unknown paper-comparison metric {metric!r}")


def _setting(config: RunConfig, path: str) -> Any:
    value: Any = config
    for part in path.split("."):
        value = getattr(value, part)
    return value


def cell_with(members: dict[str, Cell], settings: dict[str, Any]) -> Cell | None:
    """The experiment's cell with these settings (None when the run has none, or several)."""
    found = [
        c
        for c in members.values()
        if all(_setting(c.config, path) == value for path, value in settings.items())
    ]
    return found[0] if len(found) == 1 else None


def measured(number: PaperNumber, cells: dict[str, dict[str, Cell]]) -> float | None:
    """This project's value of the number, or None where the cells were not run."""
    members = cells.get(number.experiment or "", {})
    wanted = [number.cell, number.base] if number.measure != "spread" else list(number.cells)
    found = [cell_with(members, w) if w is not None else None for w in wanted]
    if number.metric is None or any(f is None for f, w in zip(found, wanted, strict=True) if w):
        return None
    if number.measure == "spread":
        values = [metric_value(c, number.metric) for c in found if c is not None]
        return max(values) - min(values)
    value = metric_value(found[0], number.metric)  # type: ignore[arg-type]
    if number.measure == "level":
        return value
    base = metric_value(found[1], number.metric)  # type: ignore[arg-type]
    return value - base if number.measure == "difference" else value / base if base else None


def agreement(number: PaperNumber, value: float | None) -> str:
    if number.experiment is None:
        return "no counterpart"
    if value is None or np.isnan(value):
        return "not run"
    if number.measure == "difference":
        if number.paper == 0:
            return "agrees" if abs(value) <= number.tolerance else "differs"
        if abs(value) < 1e-9:
            return "no change"
        return "agrees" if np.sign(value) == np.sign(number.paper) else "opposite"
    if number.measure == "ratio":
        return "agrees" if (value - 1) * (number.paper - 1) > 0 else "opposite"
    if number.measure == "spread":
        return "agrees" if value <= number.paper else "wider"
    return "level"


def compare(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """One row per paper number: where, what, the paper's value, ours, and whether a
    contrast points the same way ("level" for a single cell's value)."""
    rows = []
    for number in paper_numbers():
        value = measured(number, cells)
        ours = None if value is None or np.isnan(value) else round(value, 2)
        rows.append(
            {
                "section": number.section,
                "what": number.what,
                "measure": number.measure,
                "paper": ("~" if number.about else "") + f"{number.paper:g}",
                "ours": "" if ours is None else f"{ours:g}",
                "direction": agreement(number, value),
            }
        )
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    """How many contrasts agree, in one line."""
    counts = Counter(r["direction"] for r in rows)
    verdicts = ("agrees", "opposite", "no change", "differs", "wider")
    parts = [f"{counts[k]} {k}" for k in verdicts if counts[k]]
    return "paper comparison: " + (", ".join(parts) or "no contrast measured")
