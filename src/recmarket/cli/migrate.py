"""``recmarket migrate``: runs and settings files of an older form, rewritten once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from recmarket.cli.app import app, fail, out, user_errors


@app.command("migrate")
def migrate(
    directories: Annotated[
        list[Path],
        typer.Argument(help="directories of runs, reproduces or settings files (searched whole)"),
    ],
) -> None:
    """Rewrite once, in the current form, the runs and settings files under each directory
    that an older form of the settings made: a run's stored settings and hash, a reproduce
    cell's directory and its plan, and a settings file's older tables (the file is kept
    beside it as FILE.orig). Running it again changes nothing."""
    from recmarket.run.migrate import migrate_runs
    from recmarket.run.migrate_settings import migrate_settings

    with user_errors():
        for directory in directories:
            if not directory.is_dir():
                fail(f"{directory}: not a directory")
            runs = migrate_runs(directory)
            settings = migrate_settings(directory)
            for line in [*runs.runs, *runs.plans, *settings.rewritten]:
                out.print(line, highlight=False)
            for line in [*runs.left, *settings.left]:
                out.print(f"left: {line}", style="yellow", highlight=False)
            if not (runs.runs or runs.plans or settings.rewritten):
                out.print(f"{directory}: nothing of an older form", highlight=False)
