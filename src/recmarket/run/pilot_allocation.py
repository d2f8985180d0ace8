"""How a pilot spreads its units over the strata it is drawn within (``[pilot]
allocation``).

**uniform** plays the same share of every (seed, domain) stratum, as planned before anything
plays (run/pilot.py). **neyman** plays as many units in all, spread across the strata in
proportion to N_h S_h (Neyman 1934; stratified PPI, Fisch et al. 2024): N_h the stratum's
units, S_h the spread between them of the surrogate's prediction. A stratum whose units the
surrogate finds alike learns little from more pilot units; one whose units differ learns
most. The spread is the surrogate's, known before any pilot call: once the study's cells
and the surrogate's replays are played, each unit's target-purchase rate is averaged over
those plays, and S_h^2 is its variance over the stratum's units, averaged over the
experiment's cells (the headline outcome; every estimand of the experiment then reads the
same units, so its contrasts stay paired).

The sizes keep the pilot's guarantees: each stratum plays at least the units it would under
uniform's floor (``fewest_a_stratum``) and at most all of its own; the total is the
uniform pilot's, up to rounding; and a size only grows with the budget (water-filling, then
rounding half up), so a grown pilot still holds every unit of a smaller one, each stratum
taking its smallest draws as before. Where a stratum's pilot share differs from another's,
the estimator weighs each stratum's units by N_h / n_h (analysis/ppi.py), so the point
estimate stays the market's. Where a whole (seed, domain) is the unit, a domain's seeds are
one stratum and every domain plays the same share: neyman allocates as uniform there.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from recmarket.config import RunConfig
from recmarket.experiments.units import CLUSTERS
from recmarket.run.pilot import PilotCell, PilotPlan, noise_units
from recmarket.run.pilot_units import chosen_units, fewest_a_stratum, unit_keys
from recmarket.run.store import RunStore

Stratum = tuple[int, str]  # (seed, domain)
OUTCOME = "target_purchased"  # the episode column whose per-unit spread a stratum weighs by
SEARCH_STEPS = 200  # bisection steps of the water level (far past float precision)


class Allocation(Protocol):
    """How a pilot's units are spread over its strata once the surrogate has played."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        """The plan with each cell's chosen units spread as this allocation spreads them."""
        ...


class Uniform:
    """The same share of every stratum: the plan as made before anything played."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        return plan


class Neyman:
    """As many units as uniform, spread in proportion to N_h S_h."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        by_experiment: dict[str, list[PilotCell]] = defaultdict(list)
        for cell in plan.cells:
            by_experiment[cell.experiment].append(cell)
        sized: dict[tuple[str, Stratum], int] = {}
        for experiment, cells in by_experiment.items():
            if cells[0].unit == "domain":
                continue
            strata = _strata(cells, configs, out)
            floor = fewest_a_stratum(plan.least, len(strata))
            sizes = neyman_sizes(
                {h: s.units for h, s in strata.items()},
                {h: s.spread for h, s in strata.items()},
                sum(s.uniform for s in strata.values()),
                dict.fromkeys(strata, floor),
            )
            sized |= {(experiment, h): n for h, n in sizes.items()}
        if not sized:
            return plan
        cells = [_resized(c, sized, configs[str(out / c.study_dir)], plan) for c in plan.cells]
        return replace(plan, cells=tuple(cells))


ALLOCATIONS: dict[str, Allocation] = {"uniform": Uniform(), "neyman": Neyman()}


@dataclass
class _Stratum:
    units: int  # N_h: the stratum's units
    uniform: int  # n_h under uniform: its share of the budget
    variances: list[float]  # per cell, the variance of the surrogate's unit predictions

    @property
    def spread(self) -> float:
        return math.sqrt(float(np.mean(self.variances))) if self.variances else 0.0


def _strata(
    cells: list[PilotCell], configs: Mapping[str, RunConfig], out: Path
) -> dict[Stratum, _Stratum]:
    """An experiment's strata: their units, uniform sizes and the surrogate's spreads."""
    found: dict[Stratum, _Stratum] = {}
    for cell in cells:
        study = configs[str(out / cell.study_dir)]
        keys = unit_keys(cell.unit, study.episodes.requests, study.episodes.users_per_profile)
        predictions = _predictions([cell.study_dir, *cell.replay_dirs], cell.unit, out)
        for domain, chosen in cell.chosen.items():
            h = (study.seed, domain)
            held = found.setdefault(h, _Stratum(len(keys), len(chosen), []))
            values = list(predictions.get(domain, {}).values())
            if len(values) >= 2:
                held.variances.append(float(np.var(values, ddof=1)))
    return found


def _predictions(dirs: list[str], unit: str, out: Path) -> dict[str, dict[Hashable, float]]:
    """Per domain each unit's target-purchase rate, its mean over the surrogate's plays."""
    key = CLUSTERS[unit]
    totals: dict[str, dict[Hashable, list[float]]] = defaultdict(lambda: defaultdict(list))
    for run_dir in dirs:
        per_play: dict[tuple[str, Hashable], list[float]] = defaultdict(list)
        with RunStore.read(out / run_dir) as store:
            for row in store.iter_episodes():
                per_play[(row["domain"], key(row))].append(float(row[OUTCOME]))
        for (domain, unit_key), values in per_play.items():
            totals[domain][unit_key].append(float(np.mean(values)))
    return {d: {k: float(np.mean(v)) for k, v in units.items()} for d, units in totals.items()}


def neyman_sizes(
    units: Mapping[Stratum, int],
    spreads: Mapping[Stratum, float],
    budget: int,
    floors: Mapping[Stratum, int],
) -> dict[Stratum, int]:
    """Units a stratum plays: n_h = clip(c N_h S_h, floor_h, N_h), rounded half up, with
    the water level c set so that the unrounded sizes sum to ``budget``. Every spread zero:
    in proportion to N_h (nothing tells the strata apart)."""
    weight = {h: units[h] * spreads[h] for h in units}
    if not any(w > 0 for w in weight.values()):
        weight = {h: float(units[h]) for h in units}
    low = {h: min(floors[h], units[h]) for h in units}

    def total(level: float) -> float:
        return sum(min(max(level * weight[h], low[h]), units[h]) for h in units)

    lo, hi = 0.0, 1.0
    while total(hi) < min(budget, sum(units.values())) and hi < 1e12:
        hi *= 2
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if total(mid) < budget else (lo, mid)
    return {h: int(min(max(math.floor(hi * weight[h] + 0.5), low[h]), units[h])) for h in units}


def _resized(
    cell: PilotCell, sized: Mapping[tuple[str, Stratum], int], study: RunConfig, plan: PilotPlan
) -> PilotCell:
    """The cell with each domain's smallest draws up to its allocated size, and its noise
    replays' units nested in them again."""
    if cell.unit == "domain":
        return cell
    keys = unit_keys(cell.unit, study.episodes.requests, study.episodes.users_per_profile)
    chosen = {
        d: sorted(
            chosen_units(
                keys,
                0.0,
                plan.seed,
                d,
                study.seed,
                cell.unit,
                sized[(cell.experiment, (study.seed, d))],
            )
        )
        for d in cell.chosen
    }
    noise = (
        noise_units(
            cell.unit, chosen, study.episodes.requests, {study.seed}, plan.share, plan.seed, study
        )
        if cell.noise_chosen
        else {}
    )
    return replace(cell, chosen=chosen, noise_chosen=noise)
