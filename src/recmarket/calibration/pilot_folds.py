"""The surrogate calibrated on folds of a pilot (``run.pilot_folds`` says why): for each
fold, the offline agents fitted to the pilot backend's calls in the other folds' units
only (``calibration.calibrate.fit_observations``), from the study's own parameters.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.calibration.calibrate import fit_observations
from recmarket.calibration.observations import EpisodeKey, Observations, read_observations
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.experiments.units import CLUSTERS
from recmarket.run.pilot import PilotPlan
from recmarket.run.store import RunStore


def _fold_of_episode(plan: PilotPlan, out: Path) -> dict[EpisodeKey, int]:
    """Every pilot episode's fold, by the key calibration's observations carry."""
    found: dict[EpisodeKey, int] = {}
    for c in plan.cells:
        run_dir = out / c.pilot_dir
        if not c.folds or not run_dir.is_dir():
            continue
        with RunStore.read(run_dir) as store:
            for row in store.iter_episodes():
                fold = c.folds.get(row["domain"], {}).get(str(CLUSTERS[c.unit](row)))
                if fold is not None:
                    found[(str(run_dir), row["domain"], row["ord"])] = fold
    return found


def _without(observations: Observations, folds: dict[EpisodeKey, int], k: int) -> Observations:
    def kept(group: tuple) -> tuple:
        return tuple(o for o in group if folds.get(o.episode, k) != k)

    return replace(
        observations,
        rankings=kept(observations.rankings),
        decisions=kept(observations.decisions),
        labels=kept(observations.labels),
    )


def fold_agents(plan: PilotPlan, out: Path, study: RunConfig) -> list[OfflineParams]:
    """The surrogate's parameters calibrated on each fold's complement of the pilot, from
    ``study``'s (every study cell shares them: ``plan_pilot`` refuses otherwise)."""
    folds = plan.folds
    pilot_dirs = sorted({out / c.pilot_dir for c in plan.cells if (out / c.pilot_dir).is_dir()})
    judge = Judge.of(load_embedder(study.embedder), study.agents.scale)
    observations = read_observations(pilot_dirs, judge, study.agents.ranker.long_term_weight)
    of_episode = _fold_of_episode(plan, out)
    runs = [str(d) for d in pilot_dirs]
    return [
        fit_observations(_without(observations, of_episode, k), study.agents, runs).params
        for k in range(folds)
    ]
