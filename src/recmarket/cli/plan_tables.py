"""What ``estimate --plan`` and ``reproduce --estimate --plan`` print: every way of buying the
calls side by side, each plan's cost and wall time, and the cheapest that meets the
deadline (``run.cost_plan``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from recmarket.cli.app import out

if TYPE_CHECKING:  # planning reaches the LLM price table: imported when a command runs
    from recmarket.run.estimate import CellCost, CellEstimate

PlanFlag = Annotated[
    bool,
    typer.Option(
        "--plan",
        help="price live, cached-input, off-peak, flex and batch side by side, with the wall "
        "time each plan implies, and pick the cheapest that meets --deadline",
    ),
]
Deadline = Annotated[
    float | None,
    typer.Option("--deadline", min=0, help="hours the plan may take (with --plan)"),
]
BatchHours = Annotated[
    float,
    typer.Option(
        "--batch-hours",
        min=0,
        help="hours one round of batch jobs is planned to take (default: the 24-hour "
        "completion window, the only promise)",
    ),
]
NOT_SOLD = "-"


def _usd(value: float | None) -> str:
    return NOT_SOLD if value is None else f"{value:,.2f}"


def _hours(hours: float) -> str:
    return f"{hours:,.1f} h" if hours < 48 else f"{hours / 24:,.1f} days"


def option_table(title: str, rows: dict[str, list[CellCost]]) -> Table:
    """USD of each way of buying each group's calls (summed over its unique cells; a way a
    cell cannot be bought is counted at its live cached-input price and marked *)."""
    from recmarket.run.estimate import OPTIONS

    table = Table(title=title)
    table.add_column("experiment")
    table.add_column("cells", justify="right")
    table.add_column("batchable", justify="right")
    for option in OPTIONS:
        table.add_column(f"USD {option}", justify="right")
    for name, cells in rows.items():
        unique = list({c.run_dir: c for c in cells}.values())
        shown = []
        for option in OPTIONS:
            costs = [c.options.get(option) for c in unique if c.calls]
            sold = [c for c in costs if c is not None]
            if not sold:
                shown.append(NOT_SOLD)
                continue
            fallback = sum(
                c.options.get("cached-input") or 0.0
                for c in unique
                if c.calls and c.options.get(option) is None
            )
            mark = "*" if len(sold) < len(costs) else ""
            shown.append(f"{sum(sold) + fallback:,.2f}{mark}")
        batchable = sum(c.batchable for c in unique if c.calls)
        table.add_row(name, str(len(unique)), str(batchable), *shown)
    return table


def print_plans(cells: list[CellCost], deadline: float | None, batch_hours: float) -> None:
    """Each way side by side per experiment, then each plan, and the cheapest that meets
    the deadline."""
    from recmarket.run.cost_plan import cheapest

    by_experiment: dict[str, list[CellCost]] = defaultdict(list)
    for cell in cells:
        by_experiment[cell.experiment or "this run"].append(cell)
    by_experiment["total (shared cells once)"] = cells
    out.print(
        option_table(
            "USD by how the calls are bought (*: cells it cannot buy counted live with cache "
            "hits; batch needs cells whose episodes wait on none)",
            by_experiment,
        )
    )
    plans, chosen = cheapest(cells, deadline, batch_hours)
    table = Table(
        title=f"Plans (wall time at the models' concurrency; batch rounds {batch_hours:g} h "
        "each; assumptions in recmarket.run.cost_plan)"
    )
    for col in ("plan", "USD", "x live standard", "wall time", "cells bought", "chosen"):
        table.add_column(col, justify="left" if col in ("plan", "cells bought") else "right")
    for plan in plans:
        meets = deadline is None or plan.hours <= deadline
        table.add_row(
            plan.name,
            f"{plan.cost:,.2f}",
            NOT_SOLD if plan.share is None else f"{plan.share:.2f}",
            _hours(plan.hours) + ("" if meets else " (late)"),
            ", ".join(f"{way} {n}" for way, n in sorted(plan.ways.items())),
            "<-" if plan is chosen else "",
        )
    out.print(table)
    if chosen is None:
        out.print(f"no plan meets the deadline of {deadline:g} h: give a later --deadline")
    else:
        limit = "" if deadline is None else f" within {deadline:g} h"
        out.print(f"cheapest plan{limit}: {chosen.name}, ${chosen.cost:,.2f}")


def print_run_plan(
    estimate: CellEstimate, episodes: int, deadline: float | None, batch_hours: float
) -> None:
    """``estimate --plan``: each role's calls bought each way, then the run's plans."""
    from recmarket.agents.llm.config import OFFLINE
    from recmarket.run.estimate import OPTIONS, cell_cost

    paid = [r for r in estimate.roles if r.model != OFFLINE]
    table = Table(title="USD by role and how its calls are bought")
    table.add_column("role")
    for option in OPTIONS:
        table.add_column(f"USD {option}", justify="right")
    for row in paid:
        table.add_row(row.role, *(_usd(row.options.get(o)) for o in OPTIONS))
    out.print(table)
    cell = replace(cell_cost(estimate, episodes, "this run"), experiment="this run")
    print_plans([cell], deadline, batch_hours)
