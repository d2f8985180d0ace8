"""The reputation benchmark's worst cases as the report reads them: each study directory's
``searches/worst.csv`` (``study.benchmark_search``), validated, and the figure ranking the
defences by their menu and by their worst case side by side (``analysis.worst_case`` says
how each number is made)."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from pydantic import BaseModel, ConfigDict, ValidationError

from recmarket.analysis.benchmark import benchmark_table
from recmarket.analysis.worst_case import EVERY, add_worst_found, worst_case_ranks
from recmarket.config_file import described
from recmarket.report.data import Cell, Figure, MissingCell

WORST = Path("searches") / "worst.csv"  # under a study directory
MAX_WORST_BYTES = 4 * 2**20  # a search's worst case is a line: thousands of them fit


class WorstFound(BaseModel):
    """One row of ``worst.csv``: a family's worst case found under one defence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attack: str
    defence: str
    defence_label: str
    parameters: str
    attacker_share: float
    gain_search: float
    gain_heldout: float
    gain_heldout_low: float
    gain_heldout_high: float
    search_seeds: str
    heldout_seeds: str
    interval_method: str


def read_worst(cells: list[Cell]) -> list[dict[str, Any]]:
    """The worst cases found in the cells' study directories, one per (family, defence);
    a ``ValueError`` naming the file and line of a row that is not one."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for study in sorted({c.study for c in cells if c.study is not None}):
        path = study / WORST
        if not path.is_file():
            continue
        if path.stat().st_size > MAX_WORST_BYTES:
            raise ValueError(f"{path}: over {MAX_WORST_BYTES} bytes; not a search's worst cases")
        with path.open(newline="", encoding="utf-8") as fh:
            for line, row in enumerate(csv.DictReader(fh), start=2):
                try:
                    w = WorstFound.model_validate(row).model_dump()
                except ValidationError as error:
                    raise ValueError(f"{path}, line {line}: {described(error)}") from None
                found.setdefault((w["attack"], w["defence_label"]), w)
    return list(found.values())


def benchmark_rows(cells: list[Cell]) -> list[dict[str, Any]]:
    """The benchmark's table (``analysis.benchmark``), each searched family and defence's
    rows with its worst found (``analysis.worst_case``)."""
    table = benchmark_table([(c.name, c.config, c.rows) for c in cells])
    add_worst_found(table, read_worst(cells))
    return table


def worst_case_ranking(cells: list[Cell]) -> Figure:
    """Reputation benchmark: each defence's largest gain over the policy on the menu beside
    its worst case with searched attacks (held-out seeds), with 95% intervals and ranks."""
    found = read_worst(cells)
    if not found:
        raise MissingCell("no searches/worst.csv beside the benchmark's cells")
    ranks = worst_case_ranks(benchmark_rows(cells), found)
    rows = [r for r in ranks if r["attack"] == EVERY]  # drawn; the table has every family's
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(rows) + 1.5))
    for y, row in enumerate(sorted(rows, key=lambda r: r["rank_worst"])):
        for side, colour, shift in (("menu_worst", "#888", -0.15), ("worst_case", "#c33", 0.15)):
            value, low, high = row[side], row[f"{side}_low"], row[f"{side}_high"]
            errors = [[0.0], [0.0]] if math.isnan(low) else [[value - low], [high - value]]
            ax.errorbar(
                value, y + shift, xerr=errors, marker="o", color=colour, capsize=2, linewidth=0.8
            )
        ax.text(
            1.01,
            y,
            f"{row['rank_menu']} -> {row['rank_worst']}",
            transform=ax.get_yaxis_transform(),
            fontsize=7,
            va="center",
        )
    ordered = sorted(rows, key=lambda r: r["rank_worst"])
    ax.set_yticks(range(len(ordered)), [r["defence"] for r in ordered], fontsize=8)
    ax.axvline(0, color="#444", linewidth=0.8)
    ax.set_xlabel("largest gain over the policy-only twin in Top-1 share (grey: menu, red: worst)")
    ax.set_title("Defences by menu and by worst case (rank menu -> worst)", fontsize=9)
    fig.tight_layout()
    return fig, ranks
