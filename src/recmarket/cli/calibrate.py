"""``recmarket calibrate``: fit the offline agents' choice parameters to finished runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from recmarket.cli.app import app, err, fail, out, user_errors
from recmarket.locks import WriterLock

if TYPE_CHECKING:  # the fit needs scipy: imported when a calibration runs, not for --help
    from recmarket.calibration.calibrate import Calibration
    from recmarket.calibration.mle import Estimate
    from recmarket.report.prediction import PredictionRow

REPLICATES = 20  # offline runs per checked cell (recmarket.report.prediction takes it as given)


def prediction_table(rows: list[PredictionRow], replicates: int) -> Table:
    """The check's table: each model value beside its calibrated offline prediction and
    interval."""
    table = Table(
        title=f"Calibrated offline predictions against the model ({replicates} offline "
        "replicates per cell; interval: 2.5th-97.5th percentile)"
    )
    for column in ("cell", "metric", "model", "offline prediction", "95% interval", "inside"):
        table.add_column(column, justify="left" if column in ("cell", "metric") else "right")
    for r in rows:
        cell = f"{r.cell}, {r.episodes} episodes ({r.failed} failed)"
        table.add_row(
            cell,
            r.metric,
            f"{r.model:.3f}",
            f"{r.predicted:.3f}",
            f"[{r.low:.3f}, {r.high:.3f}]",
            "yes" if r.inside else "no",
        )
    return table


def _identified(e: Estimate) -> str:
    if e.identified:
        return "yes"
    return "no (no finite SE)" if e.fitted else "no (kept)"


def _rows(table: Table, part: str, estimates: tuple[Estimate, ...]) -> None:
    for e in estimates:
        se = "-" if e.se is None else f"{e.se:.3g}"
        table.add_row(part, e.name, f"{e.value:.4g}", se, _identified(e))


def _summary(calibration: Calibration) -> list[str]:
    lines = []
    fits = [("ranker", calibration.ranker), *calibration.decisions.items()]
    for name, fitted in fits:
        if fitted is not None:
            lines.append(
                f"{name}: log-likelihood {fitted.log_likelihood:.1f} against "
                f"{fitted.null_log_likelihood:.1f} for the null model (pseudo-R2 "
                f"{fitted.pseudo_r2:.3f}), {fitted.observations} observations"
            )
    labels = calibration.labels
    if labels.observations:
        lines.append(
            f"labels: thresholds reproduce {labels.agreement:.1%} of {labels.observations} "
            f"labels (the most common label alone: {labels.majority:.1%})"
        )
    for name, held in calibration.held_out.items():
        lines.append(
            f"held-out {name} agreement: {held['fitted']:.1%} fitted, {held['prior']:.1%} "
            f"with the starting parameters (n = {held['n']})"
        )
    return lines


@app.command("calibrate")
def calibrate_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="finished run directories")],
    out_path: Annotated[
        Path, typer.Option("--out", help="where to write the [agents] tables (TOML)")
    ] = Path("calibrated.toml"),
    check: Annotated[
        list[Path] | None,
        typer.Option(
            "--check",
            help="a finished model run in another cell: simulate it offline with the fitted "
            "parameters and compare (repeat for more cells)",
        ),
    ] = None,
    replicates: Annotated[
        int, typer.Option("--replicates", min=2, help="offline runs per checked cell")
    ] = REPLICATES,
    pool_backends: Annotated[
        bool,
        typer.Option(
            "--pool-backends",
            help="pool runs whose shortlists, decisions or labels different backends answered "
            "(a model and the offline rules, or two models); refused without it",
        ),
    ] = False,
) -> None:
    """Estimate the offline model's choice parameters (ranker, decision per profile,
    updater thresholds) from the stored role calls of finished runs, by maximum
    likelihood; write them as a config file that run --config accepts. With --check,
    predict other cells' model runs with the fitted offline agents and say which metrics
    fall inside the prediction intervals."""
    from recmarket.calibration.calibrate import calibrate, write_params
    from recmarket.calibration.pooling import checked_runs
    from recmarket.report.prediction import check_predictions

    with user_errors():
        for run_dir in [*run_dirs, *(check or [])]:
            if not (run_dir / "run.sqlite").is_file():
                fail(f"{run_dir}: no run store (run.sqlite) here")
        check = checked_runs(check or [], run_dirs)  # refused before the fit, not after
        with WriterLock(out_path.parent):  # one calibration writes a directory at a time
            calibration = calibrate(run_dirs, pool_backends=pool_backends)
            report = write_params(calibration, out_path)
    table = Table(title=f"Calibrated offline parameters ({len(run_dirs)} run(s))")
    for column in ("part", "parameter", "estimate", "SE", "identified"):
        table.add_column(column)
    if calibration.ranker is not None:
        _rows(table, "ranker", calibration.ranker.estimates)
    for profile, fitted in calibration.decisions.items():
        _rows(table, f"decision.{profile}", fitted.estimates)
    _rows(table, "update", calibration.labels.estimates)
    out.print(table)
    for line in _summary(calibration):
        out.print(line)
    for warning in calibration.warnings:
        err.print(f"warning: {warning}", style="yellow")
    out.print(f"wrote {out_path} (use: recmarket run --config {out_path}) and {report}")
    if check:
        with user_errors():
            rows = check_predictions(calibration.params, check, replicates)
        out.print(prediction_table(rows, replicates))
        inside = sum(r.inside for r in rows)
        out.print(f"{inside} of {len(rows)} model values inside their 95% prediction interval")
