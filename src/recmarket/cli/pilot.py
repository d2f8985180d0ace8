"""``recmarket pilot-plan``: size a pilot from a first one (report/pilot_planner.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.cli.app import app, fail, out, user_errors
from recmarket.embedding.cache import default_cache_dir


@app.command("pilot-plan")
def pilot_plan(
    out_dir: Annotated[Path, typer.Argument(help="a reproduce directory with a pilot")],
    half_width: Annotated[
        float,
        typer.Option("--half-width", min=0.0, help="the 95% interval's half-width wanted"),
    ],
    outcome: Annotated[
        list[str] | None,
        typer.Option("--outcome", help="plan only these outcomes (as ppi.csv names them)"),
    ] = None,
) -> None:
    """Per estimand, the pilot units, LLM calls and USD that a target half-width needs,
    pilot-only and with PPI, from the first pilot's spread and the pilot file's prices."""
    from recmarket.report.pilot_data import PilotUnfinished
    from recmarket.report.pilot_planner import NoPilot, plan_estimands, planned_rows

    if half_width <= 0:
        fail(f"--half-width: {half_width} is not above 0")
    with user_errors():
        try:
            planned = plan_estimands(
                out_dir, half_width, default_cache_dir(), set(outcome) if outcome else None
            )
        except (NoPilot, PilotUnfinished) as exc:
            fail(str(exc))
    if not planned:
        fail(f"{out_dir}: no estimand{' of ' + ', '.join(outcome) if outcome else ''}")
    rows = planned_rows(planned)
    table = Table(
        title=f"Pilot units for a 95% half-width of {half_width:g} (sizes forecast from the "
        "first pilot's spread; grown pilots read the anytime interval)"
    )
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(*row.values())
    out.print(table)
