"""Cross-fitting where the surrogate is calibrated on the pilot, on the running side.

A surrogate calibrated on the pilot's own units predicts those units better than it
predicts the others: its error there understates its error elsewhere, and so would the
correction and its interval. So the pilot's units are dealt to K folds within each (seed,
domain) stratum (``run.pilot_units.unit_folds``); for each fold a ``FoldCalibrator``
(``calibration.pilot_folds.fold_agents``, handed to the pilot's add-on by the study layer:
calibration reads finished runs, so it sits above this layer) fits the offline agents to
the pilot's calls in the other folds' units, and that fold's surrogate plays every unit of
the study R times with the replays' role draws. A pilot unit's prediction is its own fold's
surrogate's, one that never saw it; a unit's prediction in the bulk is the mean over the K
surrogates (cross-prediction-powered inference, Zrnic and Candes 2024).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from recmarket.agents.rules.params import OfflineParams
from recmarket.config import RunConfig
from recmarket.run.pilot import PilotPlan
from recmarket.run.pilot_record import read_pilot, write_pilot
from recmarket.run.study_plan import cell_dir


class FoldCalibrator(Protocol):
    """Fits the surrogate's parameters on each fold's complement of the pilot, starting
    from the study's."""

    def __call__(self, plan: PilotPlan, out: Path, study: RunConfig) -> list[OfflineParams]: ...


def fold_configs(
    plan: PilotPlan, configs: dict[str, RunConfig], out: Path, agents: list[OfflineParams]
) -> tuple[PilotPlan, dict[str, RunConfig]]:
    """The plan with every cell's folds' run directories, and their configurations: each
    study cell with a fold's parameters, once with each of the replays' role draws."""
    to_play: dict[str, RunConfig] = {}
    cells = []
    for c in plan.cells:
        study = configs[str(out / c.study_dir)]
        dirs = []
        for params in agents:
            plays = []
            for draws in range(plan.replays):
                update = {"agents": params, "draws": draws, "record_choices": plan.exact_choices}
                cfg = study.model_copy(update=update)
                run_dir = str(cell_dir(cfg.condition, cfg.digest()))
                to_play[str(out / run_dir)] = cfg
                plays.append(run_dir)
            dirs.append(tuple(plays))
        cells.append(replace(c, fold_dirs=tuple(dirs)))
    return replace(plan, cells=tuple(cells)), to_play


def cross_fitted(
    recorded: PilotPlan, configs: dict[str, RunConfig], out: Path, calibrate: FoldCalibrator
) -> dict[str, RunConfig]:
    """Once the pilot is played: the surrogate calibrated on each fold's complement, the
    folds recorded in pilot.json, and the cells those surrogates play."""
    study = configs[str(out / recorded.cells[0].study_dir)]
    fitted, to_play = fold_configs(recorded, configs, out, calibrate(recorded, out, study))
    write_pilot(out, fitted.grown_from(read_pilot(out)))
    return to_play
