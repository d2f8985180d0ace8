"""``recmarket calibrate``: fit the offline agents' choice parameters to finished runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.calibration.calibrate import Calibration, calibrate, write_params
from recmarket.calibration.mle import Fitted
from recmarket.cli.app import app, err, fail, out, user_errors


def _rows(table: Table, part: str, fitted: Fitted) -> None:
    for e in fitted.estimates:
        se = "-" if e.se is None else f"{e.se:.3g}"
        table.add_row(part, e.name, f"{e.value:.4g}", se, "yes" if e.identified else "no (kept)")


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
) -> None:
    """Estimate the offline model's choice parameters (ranker, decision per profile,
    updater thresholds) from the stored role calls of finished runs, by maximum
    likelihood; write them as a config file that run --config accepts."""
    with user_errors():
        for run_dir in run_dirs:
            if not (run_dir / "run.sqlite").is_file():
                fail(f"{run_dir}: no run store (run.sqlite) here")
        calibration = calibrate(run_dirs)
        report = write_params(calibration, out_path)
    table = Table(title=f"Calibrated offline parameters ({len(run_dirs)} run(s))")
    for column in ("part", "parameter", "estimate", "SE", "identified"):
        table.add_column(column)
    if calibration.ranker is not None:
        _rows(table, "ranker", calibration.ranker)
    for profile, fitted in calibration.decisions.items():
        _rows(table, f"decision.{profile}", fitted)
    for e in calibration.labels.estimates:
        se = "-" if e.se is None else f"{e.se:.3g}"
        table.add_row("update", e.name, f"{e.value:.4g}", se, "yes" if e.identified else "no")
    out.print(table)
    for line in _summary(calibration):
        out.print(line)
    for warning in calibration.warnings:
        err.print(f"warning: {warning}", style="yellow")
    out.print(f"wrote {out_path} (use: recmarket run --config {out_path}) and {report}")
