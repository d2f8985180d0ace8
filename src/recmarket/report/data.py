"""What the report reads: the reproduce plan and each cell's episode rows, and the
statistics computed from them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import Interval, cluster_user, paired_request
from recmarket.analysis.funnel import funnel
from recmarket.run.reproduce import read_plan
from recmarket.run.store import RunStore

Row = dict[str, Any]


@dataclass
class Cell:
    experiment: str
    name: str
    run_dir: Path
    rows: list[Row]
    config: Any

    @property
    def macro(self) -> dict[str, Any]:
        return funnel(self.rows)["macro"]


def load_cells(out_dirs: list[Path]) -> dict[str, dict[str, Cell]]:
    """experiment -> cell name -> Cell, from each directory's plan.json and run stores."""
    cells: dict[str, dict[str, Cell]] = defaultdict(dict)
    loaded: dict[str, tuple[list[Row], Any]] = {}
    for out in out_dirs:
        for entry in read_plan(out):
            run_dir = str(out / entry.run_dir)
            if run_dir not in loaded:
                with RunStore.read(Path(run_dir)) as store:
                    loaded[run_dir] = (store.episodes(), store.config())
            rows, cfg = loaded[run_dir]
            cells[entry.experiment][entry.cell] = Cell(
                entry.experiment, entry.cell, Path(run_dir), rows, cfg
            )
    return cells


def rate_interval(
    rows: list[Row],
    value: Callable[[Row], float],
    draws: int = 50_000,
) -> Interval:
    """A cell's macro rate with a 95% interval: users resampled under reputation, requests
    otherwise."""
    by_domain: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_domain[r["domain"]].append(r)
    if rows and rows[0]["condition"] == "local-rep":
        sums, counts = {}, {}
        for domain, members in by_domain.items():
            users = sorted({r["sim_user"] for r in members})
            sums[domain] = np.array(
                [sum(value(r) for r in members if r["sim_user"] == u) for u in users]
            )
            counts[domain] = np.array([sum(r["sim_user"] == u for r in members) for u in users])
        return cluster_user(sums, counts, draws=draws)
    return paired_request(
        {d: np.array([value(r) for r in m]) for d, m in by_domain.items()}, draws=draws
    )


def is_target_purchase(r: Row) -> float:
    return float(r["target_purchased"])


def top1_is(policy: str) -> Callable[[Row], float]:
    return lambda r: float(r["top1_policy"] == policy)
