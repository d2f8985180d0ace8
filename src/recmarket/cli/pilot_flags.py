"""The flags that put a pilot beside a study (``reproduce --pilot``), and their check
together: a file, a share of the units in (0, 1], a seed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from recmarket.cli.app import fail
from recmarket.run.pilot import PilotAsked

PilotFlag = Annotated[
    Path | None,
    typer.Option(
        "--pilot",
        help="a pilot file ([agents], [roles], [llm], [pilot] tables): that backend "
        "plays a random share of the study's units and the report gives "
        "prediction-powered intervals for it (docs/llm-valid.md)",
    ),
]
PilotShare = Annotated[
    float | None,
    typer.Option("--pilot-share", help="the share of units the pilot plays, in (0, 1]"),
]
PilotSeed = Annotated[
    int,
    typer.Option(
        "--pilot-seed",
        min=0,
        help="seed of the pilot's unit draws (a larger share keeps a smaller one's units)",
    ),
]


def pilot_asked(path: Path | None, share: float | None, seed: int) -> PilotAsked | None:
    """The pilot the flags ask for, checked together: a file and a share in (0, 1]."""
    if path is None:
        if share is not None:
            fail("--pilot-share is the share of units a pilot plays: give the pilot with --pilot")
        return None
    if share is None:
        fail("--pilot needs --pilot-share, the share of the study's units it plays, in (0, 1]")
    if not 0 < share <= 1:
        fail(f"--pilot-share: {share} is not in (0, 1]")
    return PilotAsked(path, share, seed)
