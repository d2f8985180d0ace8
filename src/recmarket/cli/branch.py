"""``recmarket branch``: a run's requests replayed with settings changed from a round on."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from recmarket.cli.app import app, fail, out, user_errors
from recmarket.cli.llm_options import Budget, LlmCache, Replay


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
    llm_cache: LlmCache = None,
    replay: Replay = False,
    budget: Budget = None,
) -> None:
    """Replay PARENT's requests into --out: rounds before --from-round are copied with every
    call they made (none is made again), later rounds are played with the --set changes.
    The two runs share their requests, so contrasts between them are paired; a branch that
    changes nothing equals its parent record for record. A parent must have played every
    episode of the rounds copied, and no other process may be writing it."""
    from recmarket.cli.run import llm_guards_given, played
    from recmarket.run.branch import overrides, prepared
    from recmarket.run.store import RunStore

    params: dict[str, Any] = {"llm_cache": llm_cache, "replay": replay, "budget": budget}
    params |= {"executor": "local", "address": None, "as_json": False}
    with user_errors():
        try:
            changes = overrides(assignments or [])
        except ValueError as error:
            fail(str(error))
        with RunStore.read(parent) as store:  # checked before anything is written
            llm_guards_given(store.config(), params)
        cfg = prepared(parent, target, from_round, changes)
        result = played(cfg, target, params)
        episodes = len(result.store.episodes())
        result.store.close()
    out.print(f"branch of {parent} from round {from_round}: {episodes:,} episodes in {target}")
    out.print(branch_contrast(parent, target, from_round), soft_wrap=True)


def branch_contrast(parent: Path, branch_dir: Path, from_round: int) -> str:
    """Target purchase, branch minus parent over the replayed rounds, with the paired
    interval beside the unpaired one (pairing is why a branch exists)."""
    from recmarket.analysis.contrasts import is_target_purchase, paired_and_unpaired
    from recmarket.experiments.units import coarsest, memory_unit
    from recmarket.run.store import RunStore

    runs = []
    for directory in (parent, branch_dir):
        with RunStore.read(directory) as store:
            rows = [r for r in store.episodes() if r["round"] >= from_round - 1]
            runs.append((rows, store.config()))
    if not runs[1][0]:
        return f"no round from {from_round} on: nothing to contrast"
    unit = coarsest([memory_unit(config) for _, config in runs])
    paired, unpaired = paired_and_unpaired(runs[0][0], runs[1][0], is_target_purchase, unit)
    head = f"target purchase, branch minus parent, rounds {from_round}+: {paired.estimate:+.2f} pp"
    if math.isnan(paired.low):
        return f"{head}; {paired.method}"
    widths = paired.high - paired.low, unpaired.high - unpaired.low
    gain = f"{widths[1] / widths[0]:.1f} times narrower" if widths[0] > 0 else "no width at all"
    return (
        f"{head}; paired 95% [{paired.low:+.2f}, {paired.high:+.2f}] ({paired.method}), unpaired "
        f"[{unpaired.low:+.2f}, {unpaired.high:+.2f}]: the paired interval is {gain}"
    )
