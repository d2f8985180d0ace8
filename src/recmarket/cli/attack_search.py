"""``recmarket attack-search``: a defence's worst case in an attack family, by search
(``study/attack_search.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.cli.app import app, fail, out, progress_bar, user_errors


@app.command("attack-search")
def attack_search_command(
    attack: Annotated[
        str, typer.Option("--attack", help="the attack family searched (forge, ...)")
    ],
    defence: Annotated[
        str,
        typer.Option("--defence", help="a defence of the reputation benchmark (brs-filter, ...)"),
    ],
    out_dir: Annotated[Path, typer.Option("--out", help="where the trials and cells go")],
    budget: Annotated[
        int, typer.Option("--budget", min=1, help="trials, each a cell (its twin shared)")
    ] = 20,
    scale: Annotated[
        float, typer.Option("--scale", min=0.001, help="the benchmark's schedule cut, as reproduce")
    ] = 1.0,
    seed: Annotated[int, typer.Option("--seed", min=0, help="the optimiser's seed")] = 0,
    workers: Annotated[
        int, typer.Option("--workers", min=0, help="processes running cells (0: one per core)")
    ] = 0,
) -> None:
    """Search an attack family's parameters and share for the largest gain over its
    policy-only twin under one benchmark defence, starting from the menu's cell; re-measure
    the winner on held-out seeds (trials.csv, worst.csv). Resumes from the stored trials."""
    from recmarket.catalogue.attack_spaces import space_for
    from recmarket.run.executor import LocalExecutor, ProcessExecutor
    from recmarket.study.attack_cells import Benchmark
    from recmarket.study.attack_search import search

    try:
        space_for(attack)
        Benchmark(defence, scale)
    except ValueError as error:
        fail(str(error))
    count = workers or os.cpu_count() or 1
    executor = ProcessExecutor(count) if count > 1 else LocalExecutor()
    with user_errors(), progress_bar() as bar:
        task = bar.add_task(f"attack-search {attack} against {defence}", total=budget)
        found = search(
            attack,
            defence,
            budget,
            scale,
            out_dir,
            executor,
            seed=seed,
            on_trial=lambda done, total: bar.update(task, completed=done, total=total),
        )
    w = found.worst
    table = Table(title=f"Worst case of {attack} against {defence} ({out_dir / 'worst.csv'})")
    for column in ("", "gain in Top-1 share over the twin (pp)", "seeds"):
        table.add_column(column)
    menu = found.trials[0]
    table.add_row("menu (trial 0)", f"{100 * menu['gain']:+.1f}", menu["seeds"])
    table.add_row("worst found, searched", f"{100 * w['gain_search']:+.1f}", w["search_seeds"])
    held = (
        f"{100 * w['gain_heldout']:+.1f} [{100 * w['gain_heldout_low']:+.1f}, "
        f"{100 * w['gain_heldout_high']:+.1f}]"
    )
    table.add_row("worst found, held-out seeds", held, w["heldout_seeds"])
    out.print(table)
    out.print(f"parameters: {w['parameters']}")
