"""``recmarket validate``: the simulated user against real people (validity/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.cli.app import DataDir, app, fail, out, user_errors
from recmarket.cli.llm_options import Budget, Replay
from recmarket.cli.run import estimate_table
from recmarket.config import RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.validity.heldout import HALVES


@app.command("validate")
def validate_command(
    out_dir: Annotated[Path, typer.Option("--out", help="where validity.csv and .md go")],
    data: DataDir = BUNDLED_DATA_DIR,
    domain: Annotated[
        list[str] | None, typer.Option("--domain", help="these domains (default: all of --data)")
    ] = None,
    negatives: Annotated[
        int, typer.Option("--negatives", min=1, max=99, help="untouched items per held-out")
    ] = 9,
    seed: Annotated[int, typer.Option("--seed", min=0, help="the negatives' and roles' seed")] = 42,
    half: Annotated[
        str,
        typer.Option(
            "--half", help="all people, or one fixed half: fit a parameter on one, report the other"
        ),
    ] = "all",
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML or YAML settings whose [agents], [roles], [llm] and [embedder] play",
        ),
    ] = None,
    replay: Replay = False,
    budget: Budget = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="print the calls, tokens and cost each role would take, and call nothing",
        ),
    ] = False,
) -> None:
    """Hold out each person's latest review, judge it against items they never touched, and
    write the validity card: the user's roles beside chance, popularity and the history
    centroid, with 95% intervals over people."""
    import asyncio

    from recmarket.config_file import build_config
    from recmarket.validity.validate import validate_settings

    if half not in HALVES:
        fail(f"--half {half}: choose one of {', '.join(HALVES)}")
    with user_errors():
        settings = build_config(config, {}, {})
        if estimate:
            _print_estimate(settings, data, domain or [], negatives, seed, half)
            return
        rows = asyncio.run(
            validate_settings(
                settings,
                data,
                domain or [],
                out_dir,
                replay=replay,
                budget=budget,
                negatives=negatives,
                seed=seed,
                half=half,
            )
        )
    table = Table(title=f"Validity card ({out_dir / 'validity.csv'})")
    for column in ("measure", "protocol", "scorer", "n", "value", "95% interval", "chance"):
        table.add_column(column)
    for r in rows:
        cells = r.cells()
        table.add_row(*cells[:3], cells[4], cells[5], f"[{cells[6]}, {cells[7]}]", cells[8])
    out.print(table)


def _print_estimate(
    settings: RunConfig, data: Path, domains: list[str], negatives: int, seed: int, half: str
) -> None:
    from recmarket.run.estimate import price_sources
    from recmarket.validity.estimate import SAMPLE, estimate_validation

    held, estimates = estimate_validation(
        settings, data, domains, negatives=negatives, seed=seed, half=half
    )
    title = (
        f"Estimate for validate: {held:,} held-outs, from the first {SAMPLE} of each domain "
        "scored offline (prompt tokens ~ characters / 4)"
    )
    out.print(estimate_table(title, estimates))
    for source in price_sources(settings):
        out.print(f"prices of {source}")
