"""What the report reads: the reproduce plan and each cell's episode rows (statistics
on them live in ``recmarket.analysis``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.funnel import funnel
from recmarket.config import RunConfig
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.run.reproduce import read_plan
from recmarket.run.store import RunStore

Row = dict[str, Any]


@dataclass
class Cell:
    experiment: str
    name: str  # the spec's label for the cell: shown, never used to find it
    figure: str  # which figure the cell's experiment feeds
    run_dir: Path
    rows: list[Row]
    config: RunConfig

    @property
    def macro(self) -> dict[str, Any]:
        return funnel(self.rows)["macro"]


class MissingCell(LookupError):
    """A figure needs a cell the run does not have (a custom spec under a built-in figure)."""


def find(cells: Iterable[Cell], wanted: str, match: Callable[[RunConfig], bool]) -> Cell:
    """The cell whose settings ``match``; ``wanted`` describes it for the message."""
    found = [c for c in cells if match(c.config)]
    if len(found) != 1:
        raise MissingCell(f"{len(found)} cells with {wanted} (one expected)")
    return found[0]


def figure_of(experiment: str, planned: str) -> str:
    """The figure a plan entry names, or for an older plan its built-in spec's figure."""
    if planned or experiment not in builtin_names():
        return planned
    return load_spec(experiment).figure


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
            figure = figure_of(entry.experiment, entry.figure)
            cells[entry.experiment][entry.cell] = Cell(
                entry.experiment, entry.cell, figure, Path(run_dir), rows, cfg
            )
    return cells
