"""``recmarket branch``: a run's requests replayed with settings changed from a round on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from recmarket.cli.app import app, fail, out, user_errors


@app.command("branch")
def branch_command(
    parent: Annotated[Path, typer.Argument(help="a finished (or stopped) run directory")],
    from_round: Annotated[
        int, typer.Option("--from-round", help="the first round (1-based) played anew")
    ],
    target: Annotated[Path, typer.Option("--out", help="the branch's run directory")],
    assignments: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="KEY=VALUE, a setting changed from that round on (market.rho=1.0)"
        ),
    ] = None,
) -> None:
    """Replay PARENT's requests into --out: rounds before --from-round are copied with every
    call they made (none is made again), later rounds are played with the --set changes.
    The two runs share their requests, so contrasts between them are paired; a branch that
    changes nothing equals its parent record for record."""
    from recmarket.run.branch import branch, overrides

    with user_errors():
        try:
            changes = overrides(assignments or [])
        except ValueError as error:
            fail(str(error))
        result = branch(parent, target, from_round, changes)
        episodes = len(result.store.episodes())
        result.store.close()
    out.print(f"branch of {parent} from round {from_round}: {episodes:,} episodes in {target}")
