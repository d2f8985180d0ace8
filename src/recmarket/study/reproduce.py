"""A study of named experiments with its add-ons: the pilot it is asked for (``--pilot``, or
the one a spec's ``[pilot]`` table names), calibrated on folds by the calibration layer.
The run layer's ``reproduce`` plays the whole; this chooses what it plays, puts the cells'
kept cards beside them once they are played, for their report, and then runs the worst-case
searches a spec's ``search`` table asks (``study.benchmark_search``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from recmarket.calibration.pilot_folds import fold_agents
from recmarket.experiments.spec import DEFAULT_SEEDS
from recmarket.run.addons import StudyAddOn
from recmarket.run.phases import Phases
from recmarket.run.pilot import PilotAsked, spec_pilot
from recmarket.run.pilot_addon import PilotAddOn
from recmarket.run.play_options import DEFAULT_PLAY, PlayOptions
from recmarket.run.reproduce import reproduce as play_study
from recmarket.run.study_plan import PlannedCell
from recmarket.study.benchmark_search import search_study
from recmarket.study.cards import gather_cards


def add_ons(names: list[str], pilot: PilotAsked | None) -> list[StudyAddOn]:
    """The study's add-ons: the pilot asked for, else the one its specs name, if any."""
    asked = pilot or spec_pilot(names)
    return [PilotAddOn(asked, fold_agents)] if asked is not None else []


def reproduce(
    names: list[str],
    out: Path,
    *,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
    workers: int = 1,
    seeds: int = DEFAULT_SEEDS,
    phases: Phases | None = None,
    pilot: PilotAsked | None = None,
    options: PlayOptions = DEFAULT_PLAY,
) -> list[PlannedCell]:
    """Play the named experiments into ``out`` with their add-ons (``run.reproduce``), then
    gather the kept cards of their cells beside them (``study.cards``) and search the worst
    cases a spec's ``[search]`` asks (``study.benchmark_search``); the cells of the plan."""
    cells = play_study(
        names,
        out,
        scale=scale,
        overrides=overrides,
        progress=progress,
        on_wait=on_wait,
        workers=workers,
        seeds=seeds,
        phases=phases,
        addons=add_ons(names, pilot),
        options=options,
    )
    gather_cards(out)  # the cells' cards beside them: their report reads them there

    def searched(done: int, total: int) -> None:
        if on_wait:
            on_wait(f"worst cases searched: {done} of {total} trials")

    search_study(
        names, out, scale=scale, overrides=overrides or {}, workers=workers, on_trial=searched
    )
    return cells
