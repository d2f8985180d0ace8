"""The pilot planner: from a first pilot, per estimand, the pilot units and the pilot
backend's calls and USD that a target half-width needs, pilot-only and with PPI.

Units come from ``analysis.pilot_sizing`` (the first pilot's spread, drawn without
replacement from the study's units). A unit's price is the pilot backend's estimate for
playing every unit of the estimand's cells (``run.pilot_cost``, at the prices the pilot
file's models configure) over the units: a contrast's unit is played in both its cells.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.pilot_sizing import units_for
from recmarket.report.data import pooled_label
from recmarket.report.pilot_data import piloted_cells
from recmarket.report.ppi_table import ppi_rows
from recmarket.run.pilot import PilotPlan
from recmarket.run.pilot_cost import whole_cell
from recmarket.run.pilot_record import read_pilot
from recmarket.run.store import RunStore


class NoPilot(LookupError):
    """The directory has no pilot to plan from."""


@dataclass(frozen=True)
class PlannedEstimand:
    """One estimand's plan: units, calls and USD for the target, pilot-only and with PPI."""

    estimand: str
    unit: str
    pilot_n: int
    units: int
    half_pilot: float
    half_ppi: float
    need_pilot: int | None
    need_ppi: int | None
    calls_per_unit: float
    usd_per_unit: float
    note: str


def unit_prices(plan: PilotPlan, out: Path, cache_dir: Path) -> dict[str, tuple[float, float]]:
    """Per piloted cell (seeds pooled, as the report labels it) the pilot backend's calls
    and USD for playing every unit of it, over its seeds."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    seen = set()
    for c in plan.cells:
        if (c.pilot_dir, c.cell) in seen or not (out / c.pilot_dir).is_dir():
            continue
        seen.add((c.pilot_dir, c.cell))
        with RunStore.read(out / c.pilot_dir) as store:
            cfg = store.config()
        cost = whole_cell(cfg, c.pilot_dir, cache_dir)
        label = pooled_label(c.cell)
        totals[label][0] += cost.calls
        totals[label][1] += cost.cost
    return {label: (calls, usd) for label, (calls, usd) in totals.items()}


def plan_estimands(
    out: Path, half_width: float, cache_dir: Path, only: set[str] | None = None
) -> list[PlannedEstimand]:
    """Every estimand of the directory's pilot (``only``: of those outcomes) sized for a
    95% interval of ``half_width``."""
    plan = read_pilot(out)
    if plan is None:
        raise NoPilot(f"{out}: no pilot (make one with reproduce --pilot FILE --pilot-share S)")
    prices = unit_prices(plan, out, cache_dir)
    planned = []
    for row in ppi_rows(piloted_cells(out, plan), only):
        arms = row["cells"].split(" - ") if row["kind"] == "contrast" else [row["cells"]]
        calls = sum(prices[a][0] for a in arms if a in prices) / row["units"]
        usd = sum(prices[a][1] for a in arms if a in prices) / row["units"]
        lost = row["pilot_n"] - int(row["df"]) if row["df"] != "" else None
        fewest = plan.least * max(int(row["n_strata"]), 1)  # the strata's minimum, counted
        sized = [
            units_for(
                (row[f"{part}_high"] - row[f"{part}_low"]) / 2,
                row["pilot_n"],
                row["units"],
                half_width,
                lost,
                fewest,
            )
            for part in ("pilot", "ppi")
        ]
        planned.append(
            PlannedEstimand(
                row["name"],
                row["unit"],
                row["pilot_n"],
                row["units"],
                (row["pilot_high"] - row["pilot_low"]) / 2,
                (row["ppi_high"] - row["ppi_low"]) / 2,
                sized[0].units,
                sized[1].units,
                calls,
                usd,
                "; ".join(sorted({s.note for s in sized if s.note})),
            )
        )
    return planned


def planned_rows(planned: list[PlannedEstimand]) -> list[dict[str, Any]]:
    """The plan as table rows: units, calls and USD for the target, both ways."""

    def need(n: int | None, per: float, digits: int) -> str:
        return "-" if n is None else f"{n * per:,.{digits}f}"

    return [
        {
            "estimand": p.estimand,
            "unit": p.unit,
            "pilot now": f"{p.pilot_n} of {p.units}",
            "half-width now (pilot-only / PPI)": f"{p.half_pilot:.4f} / {p.half_ppi:.4f}",
            "units (pilot-only / PPI)": f"{_n(p.need_pilot)} / {_n(p.need_ppi)}",
            "LLM calls (pilot-only / PPI)": f"{need(p.need_pilot, p.calls_per_unit, 0)} / "
            f"{need(p.need_ppi, p.calls_per_unit, 0)}",
            "USD (pilot-only / PPI)": f"{need(p.need_pilot, p.usd_per_unit, 2)} / "
            f"{need(p.need_ppi, p.usd_per_unit, 2)}",
            "note": p.note,
        }
        for p in planned
    ]


def _n(units: int | None) -> str:
    return "-" if units is None else str(units)
