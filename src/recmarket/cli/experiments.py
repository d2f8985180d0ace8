"""``recmarket experiments`` (the Table 1 specs) and ``recmarket reproduce`` (run them)."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from recmarket.analysis.bootstrap import point
from recmarket.analysis.market_measures import shown_at
from recmarket.cli.app import app, fail, out, progress_bar, user_errors
from recmarket.cli.llm_options import Budget, LlmCache, LLMChoice, Replay, with_llm
from recmarket.cli.pilot_flags import PilotFlag, PilotSeed, PilotShare, pilot_asked
from recmarket.cli.plan_tables import BatchHours, Deadline, PlanFlag, print_plans
from recmarket.cli.tables import shown
from recmarket.config_file import merge, read_config_file
from recmarket.embedding.cache import default_cache_dir
from recmarket.experiments.spec import DEFAULT_SEEDS, builtin_names, load_spec
from recmarket.run.cost_plan import BATCH_HOURS
from recmarket.run.store import RunStore

if TYPE_CHECKING:  # planning and playing reach the LLM client: imported when a command runs
    from recmarket.report.summary import RunSummary
    from recmarket.run.estimate import CellCost
    from recmarket.run.pilot import PilotAsked

experiments_app = typer.Typer(
    help="The named experiments of the paper's Table 1.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(experiments_app, name="experiments")


@experiments_app.command("list")
def list_experiments() -> None:
    """Every built-in experiment: cells, episodes per domain and cell, what it reproduces."""
    table = Table(title="Experiments (recmarket experiments show NAME prints a spec to copy)")
    for col in ("name", "cells", "episodes", "what"):
        table.add_column(col, justify="right" if col == "episodes" else "left")
    with user_errors():
        for name in builtin_names():
            spec = load_spec(name)
            table.add_row(
                name,
                ", ".join(c.name for c in spec.expanded()),
                f"{spec.requests:,}",
                spec.description,
            )
    out.print(table)


@experiments_app.command("show")
def show_experiment(
    name: Annotated[str, typer.Argument(help="a built-in experiment or a spec file")],
) -> None:
    """Print a spec as TOML (a built-in one, to copy and edit), then every cell it expands
    to: the listed cells crossed with its axes and seeds, with the settings each changes."""
    from importlib import resources

    with user_errors():
        spec = load_spec(name)
        path = Path(name)
        if path.suffix == ".toml" and path.is_file():
            print(path.read_text())
        else:
            print(
                resources.files("recmarket.experiments").joinpath(f"specs/{name}.toml").read_text()
            )
        cells = spec.expanded()
    table = Table(title=f"{spec.name}: {len(cells)} cells")
    for col in ("cell", "episodes", "settings"):
        table.add_column(col, justify="right" if col == "episodes" else "left")
    for cell in cells:
        settings = json.dumps(cell.settings, separators=(", ", ": "))
        table.add_row(cell.name, f"{cell.requests or spec.requests:,}", settings)
    out.print(table)


def print_estimate(
    names: list[str],
    out_dir: Path,
    scale: float,
    overrides: dict,
    seeds: int,
    plans: tuple[float | None, float] | None = None,
    pilot: PilotAsked | None = None,
) -> None:
    """Calls, tokens and USD per experiment, and the plan's total with shared cells once;
    with ``plans`` (a deadline, hours a batch round takes), every way of buying them. With
    a ``pilot``, its cells on their chosen units: the bulk is offline and costs nothing."""
    from recmarket.run.estimate import estimate_plan
    from recmarket.run.pilot import spec_pilot
    from recmarket.run.pilot_cost import estimate_pilot

    pilot = pilot or spec_pilot(names)
    if pilot is None:
        cells = estimate_plan(names, out_dir, default_cache_dir(), scale, overrides, seeds)
        what = f"{len(cells)} cells"
    else:
        cells = estimate_pilot(names, out_dir, default_cache_dir(), pilot, scale, overrides, seeds)
        what = f"the pilot's {len(cells)} cells at share {pilot.share:g} (the bulk is offline)"
    table = Table(
        title=f"Estimate of {what} at --scale {scale:g}, {seeds} seed(s) (prompt "
        "tokens ~ characters / 4; completion tokens typical of each role)"
    )
    for col in (
        "experiment",
        "cells",
        "episodes",
        "LLM calls",
        "prompt tokens",
        "completion",
        "USD peak",
        "USD off-peak",
    ):
        table.add_column(col, justify="left" if col == "experiment" else "right")
    by_experiment: dict[str, list[CellCost]] = defaultdict(list)
    for cell in cells:
        by_experiment[cell.experiment].append(cell)
    for experiment, members in by_experiment.items():
        table.add_row(experiment, *_costs(members))
    unique = list({c.run_dir: c for c in cells}.values())
    table.add_row("total (shared cells once)", *_costs(unique), style="bold")
    out.print(table)
    if not any(c.calls for c in cells):
        out.print("no role is answered by an LLM: give --backend llm --llm-model NAME (and prices)")
    elif plans is not None:
        print_plans(cells, *plans)


def _costs(cells: list[CellCost]) -> list[str]:
    return [
        str(len(cells)),
        f"{sum(c.episodes for c in cells):,}",
        f"{sum(c.calls for c in cells):,.0f}",
        f"{sum(c.prompt_tokens for c in cells):,.0f}",
        f"{sum(c.completion_tokens for c in cells):,.0f}",
        f"{sum(c.cost for c in cells):,.2f}",
        f"{sum(c.off_peak_cost for c in cells):,.2f}",
    ]


@app.command("reproduce")
@with_llm
def reproduce(
    *,
    llm: LLMChoice,
    names: Annotated[
        list[str] | None, typer.Argument(help="experiments (names or spec files); default: all")
    ] = None,
    scale: Annotated[
        float, typer.Option("--scale", min=0.001, help="share of every episode count")
    ] = 1.0,
    out_dir: Annotated[Path, typer.Option("--out", help="output directory")] = Path("reproduce"),
    seeds: Annotated[
        int,
        typer.Option(
            "--seeds",
            min=1,
            help="seeds each cell runs at (42, 43, ... or from the --config seed), for "
            "verdicts from intervals over seeds; a spec that names its seeds keeps them",
        ),
    ] = DEFAULT_SEEDS,
    llm_cache: LlmCache = None,
    replay: Replay = False,
    budget: Budget = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=0,
            help="processes running offline cells (default 0: one per core); LLM cells "
            "all play in one process, sharing each endpoint's concurrency limit",
        ),
    ] = 0,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML or YAML settings every cell takes (a calibrated [agents] table, say); "
            "like the LLM flags, they override the cells' own settings, and the flags "
            "override them",
        ),
    ] = None,
    price_only: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="price every cell's LLM calls with the configured models and stop: nothing "
            "runs and nothing is spent",
        ),
    ] = False,
    plan: PlanFlag = False,
    deadline: Deadline = None,
    batch_hours: BatchHours = BATCH_HOURS,
    pilot: PilotFlag = None,
    pilot_share: PilotShare = None,
    pilot_seed: PilotSeed = 0,
) -> None:
    """Run named experiments over the domains, resumably (finished cells are skipped)."""
    with user_errors():
        overrides = merge(read_config_file(config), llm.settings) if config else llm.settings
        asked = pilot_asked(pilot, pilot_share, pilot_seed)
        if plan and not price_only:
            fail("--plan prices the plan: give it with --estimate")
        if price_only:
            plans = (deadline, batch_hours) if plan else None
            print_estimate(names or [], out_dir, scale, overrides, seeds, plans, asked)
            return
        with progress_bar() as bar:
            task = bar.add_task("reproduce", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            def on_wait(notice: str) -> None:  # a long wait for an endpoint, or its end
                line = f"reproduce ({notice})" if notice else "reproduce"
                bar.update(task, description=escape(line))  # the bar reads markup

            from recmarket.run.play_options import PlayOptions
            from recmarket.study import reproduce as run_experiments

            cells = run_experiments(
                names or [],
                out_dir,
                scale=scale,
                overrides=overrides,
                progress=progress,
                on_wait=on_wait,
                options=PlayOptions(replay=replay, budget=budget, llm_cache=llm_cache),
                workers=workers or os.cpu_count() or 1,
                seeds=seeds,
                pilot=asked,
            )
        by_experiment = defaultdict(list)
        for cell in cells:
            by_experiment[cell.experiment].append(cell)
        table = Table(title=f"Experiments in {out_dir} (macro over domains)")
        for col in ("experiment", "cell"):  # a cell's name is folded, never cut short
            table.add_column(col, overflow="fold")
        for measure in shown_at("table"):
            table.add_column(measure.label, justify="right", overflow="fold")
        for col in ("episodes", "role failures"):
            table.add_column(col, justify="right", overflow="fold")
        for experiment, members in by_experiment.items():
            for cell in members:
                with RunStore.read(out_dir / cell.run_dir) as store:
                    rows, cfg = store.episodes(), store.config()
                failed = Counter(r["failed_role"] for r in rows if r["failed_role"])
                table.add_row(
                    experiment,
                    cell.cell,
                    *(shown(m, point(rows, m.make(cfg))) for m in shown_at("table")),
                    f"{len(rows):,}",
                    ", ".join(f"{k} {v}" for k, v in sorted(failed.items())) or "0",
                )
    with user_errors():
        write_report([out_dir], out_dir / "report", workers or os.cpu_count() or 1, table)


@app.command("report")
def report(
    out_dirs: Annotated[list[Path], typer.Argument(help="reproduce output directories")],
    target: Annotated[
        Path | None,
        typer.Option("--out", help="where to write (default: the first directory's report/)"),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=0, help="processes drawing the figures (default 0: one per core)"
        ),
    ] = 0,
) -> None:
    """Regenerate every figure and table, and the HTML report, from the run stores alone;
    print the paper's numbers beside the measured ones."""
    with user_errors():
        write_report(out_dirs, target or out_dirs[0] / "report", workers or os.cpu_count() or 1)


@app.command("frontier")
def frontier(
    out_dirs: Annotated[list[Path], typer.Argument(help="reproduce output directories")],
) -> None:
    """The design frontier of the runs' design-frontier cells (or, without any, of every
    cell): each design's users' welfare and concentration with 95% intervals, the
    non-dominated first."""
    from recmarket.analysis.frontier import frontier_table
    from recmarket.report.data import load_cells

    with user_errors():
        cells = [c for members in load_cells(out_dirs).values() for c in members.values()]
        chosen = [c for c in cells if c.figure == "frontier"] or cells
        rows = frontier_table([(c.name, c.config, c.rows) for c in chosen])
    table = Table(title="Design frontier (macro over domains; 95% intervals: see interval)")
    table.add_column("design", overflow="fold")  # a design's name is never cut short
    measures = shown_at("frontier")
    for measure in measures:
        table.add_column(measure.label, justify="right")
    table.add_column("dominated")
    for row in rows:

        def cell(name: str, row: dict = row) -> str:
            return f"{row[name]:.3f} [{row[name + '_low']:.3f}, {row[name + '_high']:.3f}]"

        table.add_row(
            row["design"],
            *(cell(m.name) for m in measures),
            "yes" if row["dominated"] else "no",
        )
    out.print(table)


def print_summary(summary: RunSummary) -> None:
    """The report's first screen, in the terminal."""
    out.rule("Summary")
    for what, value in summary.ran:
        out.print(Text.assemble((f"{what}: ", "bold"), value))
    for line in summary.found:
        out.print(line)
    if summary.cautions:
        out.print("What this run cannot show:", style="bold")
        for caution in summary.cautions:
            out.print(Text.assemble("- ", caution))
    out.rule()


def write_report(
    out_dirs: list[Path], target: Path, workers: int = 1, cells: Table | None = None
) -> None:
    """Build the report (its sections in ``workers`` processes); print its summary, the
    ``cells`` table of a reproduce, the paper comparison for what was run, and the path."""
    from recmarket.report.build import build_report
    from recmarket.report.paper import NOT_MEASURED, summary

    built = build_report(out_dirs, target, workers)
    print_summary(built.summary)
    if cells is not None:
        out.print(cells)
    measured = [r for r in built.comparison if r["verdict"] not in NOT_MEASURED]
    if measured:
        table = Table(
            title="The paper's numbers beside this run's (macro; pp, % or ratio; 95% interval "
            "as its method says: a bootstrap over seeds and units, or t over seeds; the "
            "report's table says more)"
        )
        columns = ("section", "what", "kind", "paper", "ours", "interval", "ours/paper")
        for column in (*columns, "verdict", "method"):
            right = column in ("paper", "ours", "interval", "ours/paper")
            table.add_column(column, justify="right" if right else "left")
        for row in measured:
            span = f"[{row['low']}, {row['high']}]" if row["low"] != "" else ""
            method = (
                "none" if not span else "bootstrap" if row["df"] == "" else f"t, df {row['df']}"
            )
            table.add_row(
                *(str(row[k]) for k in ("section", "what", "kind", "paper", "ours")),
                span,
                row["ratio"],
                row["verdict"],
                method,
            )
        out.print(table)
        out.print(summary(built.comparison))
    for note in built.notes:
        out.print(f"note: {escape(note)}", soft_wrap=True)
    out.print(f"report: {built.path}")
