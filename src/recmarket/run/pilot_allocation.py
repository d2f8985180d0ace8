"""How a pilot spreads its units over the strata it is drawn within (``[pilot]
allocation``), once the surrogate has played and before the pilot plays.

**uniform** plays the same share of every (seed, domain) stratum, as planned before anything
plays (run/pilot.py). **neyman** plays as many units in all, spread across the strata in
proportion to N_h S_h (Neyman 1934; stratified PPI, Fisch et al. 2024): N_h the stratum's
units, S_h the spread between them of the surrogate's prediction. A stratum whose units the
surrogate finds alike learns little from more pilot units; one whose units differ learns
most. **active** plays as many units in each stratum as uniform, drawn at chances that rise
with the surrogate's disagreement with itself on the unit (active statistical inference,
Zrnic and Candès 2024): a unit whose replays agree is predicted well and needs the pilot
least. A unit's chance is pi_i = min(1, c q_i), q_i half uniform and half in proportion to
the spread of its replays (so no unit weighs more than twice what it would under uniform),
and the stratum takes the n_h units with the smallest u_i / q_i, u_i the unit's uniform of
the pilot (sequential Poisson sampling, Ohlsson 1998: the size is fixed, and pi_i is each
unit's chance up to an error that vanishes with the stratum's size). The estimator weighs
each pilot unit by one over its chance (analysis/ppi_strata.design_weights), neyman's by
N_h / n_h, so both estimate the market's value.

Both read the surrogate alone, known before any pilot call: each unit's target-purchase
rate in each of the surrogate's plays (the study's own and its replays; the headline
outcome, so that every estimand of an experiment reads the same units and its contrasts
stay paired), over the experiment's cells. Both keep the pilot's guarantees: each stratum
plays at least the floor uniform gives it (``fewest_a_stratum``) and at most its units;
a size only grows with the share and the ranks (u_i, u_i / q_i) do not move, so a grown
pilot holds every unit of a smaller one. Where a whole (seed, domain) is the unit, a domain's
seeds are one stratum of equal shares: both allocate as uniform there.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from recmarket.config import RunConfig
from recmarket.experiments.units import CLUSTERS
from recmarket.run.pilot import PilotCell, PilotPlan, noise_units
from recmarket.run.pilot_units import chosen_units, fewest_a_stratum, unit_draw, unit_keys
from recmarket.run.store import RunStore

Stratum = tuple[int, str]  # (seed, domain)
OUTCOME = "target_purchased"  # the episode column whose spread the allocations read
SEARCH_STEPS = 200  # bisection steps of the water level (far past float precision)
UNIFORM_PART = 0.5  # the part of an active chance that is uniform's
K = TypeVar("K", bound=Hashable)


@dataclass
class StratumPlays:
    """One (seed, domain) of an experiment, as the surrogate played it."""

    keys: list[Hashable]  # every unit it has
    uniform: int  # n_h: the units uniform plays in it
    # per unit (key as text) and cell, its target-purchase rate in each surrogate play
    plays: dict[str, list[np.ndarray]] = field(default_factory=lambda: defaultdict(list))

    def spread(self) -> float:
        """S_h: the spread between units of the surrogate's prediction, over the cells."""
        per_cell = zip(*self.plays.values(), strict=True) if self.plays else iter(())
        variances = [np.var([p.mean() for p in cell], ddof=1) for cell in per_cell]
        return math.sqrt(float(np.mean(variances))) if variances else 0.0

    def disagreement(self, key: str) -> float:
        """The spread of the unit's plays, over the cells (0 where it has one play)."""
        played = self.plays.get(key, [])
        variances = [np.var(p, ddof=1) for p in played if len(p) >= 2]
        return math.sqrt(float(np.mean(variances))) if variances else 0.0


class Allocation(Protocol):
    """How a pilot's units are spread over its strata once the surrogate has played."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        """The plan with each cell's chosen units as this allocation draws them."""
        ...


class Uniform:
    """The same share of every stratum: the plan as made before anything played."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        return plan


@dataclass(frozen=True)
class Drawn:
    """How a stratum's pilot is drawn: its size, and each unit's chance where the units
    are drawn at chances of their own (else its smallest uniforms)."""

    size: int
    chances: dict[str, float] | None = None  # pi_i = min(1, c q_i)
    priorities: dict[str, float] | None = None  # q_i: the units rank by u_i / q_i


class Neyman:
    """As many units as uniform, spread in proportion to N_h S_h."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        def draw(strata: dict[Stratum, StratumPlays], least: int) -> dict[Stratum, Drawn]:
            return {h: Drawn(n) for h, n in neyman_allocated(strata, least).items()}

        return _redrawn(plan, configs, out, draw)


class Active:
    """As many units in each stratum as uniform, drawn at chances that rise with the
    surrogate's disagreement on each."""

    def allocated(self, plan: PilotPlan, configs: Mapping[str, RunConfig], out: Path) -> PilotPlan:
        def draw(strata: dict[Stratum, StratumPlays], least: int) -> dict[Stratum, Drawn]:
            return {h: Drawn(s.uniform, *active_chances(s)) for h, s in strata.items()}

        return _redrawn(plan, configs, out, draw)


ALLOCATIONS: dict[str, Allocation] = {"uniform": Uniform(), "neyman": Neyman(), "active": Active()}


def water_filled(
    weights: Mapping[K, float], low: Mapping[K, float], high: Mapping[K, float], total: float
) -> dict[K, float]:
    """x_k = clip(c w_k, low_k, high_k), the level c set so that the x sum to ``total`` (as
    near as the bounds allow): each x only grows with ``total``."""

    def filled(level: float) -> dict[K, float]:
        return {k: min(max(level * w, low[k]), high[k]) for k, w in weights.items()}

    lo, hi = 0.0, 1.0
    while sum(filled(hi).values()) < min(total, sum(high.values())) and hi < 1e15:
        hi *= 2
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(filled(mid).values()) < total else (lo, mid)
    return filled(hi)


def neyman_allocated(strata: Mapping[K, StratumPlays], least: int) -> dict[K, int]:
    """Each stratum's Neyman size: the uniform pilot's total over ``strata``, each at
    least the floor that lets the pooled pilot reach ``least`` units."""
    floor = fewest_a_stratum(least, len(strata))
    return neyman_sizes(
        {h: len(s.keys) for h, s in strata.items()},
        {h: s.spread() for h, s in strata.items()},
        sum(s.uniform for s in strata.values()),
        dict.fromkeys(strata, floor),
    )


def neyman_sizes(
    units: Mapping[K, int], spreads: Mapping[K, float], budget: int, floors: Mapping[K, int]
) -> dict[K, int]:
    """Units a stratum plays: clip(c N_h S_h, floor_h, N_h), rounded half up, the level c
    set so that the unrounded sizes sum to ``budget``. Every spread zero: in proportion to
    N_h (nothing tells the strata apart)."""
    weight = {h: units[h] * spreads[h] for h in units}
    if not any(w > 0 for w in weight.values()):
        weight = {h: float(units[h]) for h in units}
    low = {h: float(min(floors[h], units[h])) for h in units}
    sizes = water_filled(weight, low, {h: float(n) for h, n in units.items()}, budget)
    return {h: int(min(max(math.floor(sizes[h] + 0.5), low[h]), units[h])) for h in units}


def active_chances(stratum: StratumPlays) -> tuple[dict[str, float], dict[str, float]]:
    """Each unit's chance of being drawn, min(1, c q_i) summing to the uniform size, and
    its q_i: half uniform and half in proportion to the unit's disagreement."""
    keys = [str(k) for k in stratum.keys]
    spread = {k: stratum.disagreement(k) for k in keys}
    total = sum(spread.values())
    share = {k: spread[k] / total for k in keys} if total else dict.fromkeys(keys, 1 / len(keys))
    q = {k: UNIFORM_PART / len(keys) + (1 - UNIFORM_PART) * share[k] for k in keys}
    ones = dict.fromkeys(keys, 1.0)
    return water_filled(q, dict.fromkeys(keys, 0.0), ones, stratum.uniform), q


def _redrawn(
    plan: PilotPlan,
    configs: Mapping[str, RunConfig],
    out: Path,
    draw: Callable[[dict[Stratum, StratumPlays], int], dict[Stratum, Drawn]],
) -> PilotPlan:
    """The plan with each experiment's strata drawn as ``draw`` says: a size (neyman) or
    every unit's chance (active)."""
    by_experiment: dict[str, list[PilotCell]] = defaultdict(list)
    for cell in plan.cells:
        by_experiment[cell.experiment].append(cell)
    drawn: dict[tuple[str, Stratum], Drawn] = {}
    for experiment, cells in by_experiment.items():
        if cells[0].unit != "domain":
            said = draw(_strata(cells, configs, out), plan.least)
            drawn |= {(experiment, h): d for h, d in said.items()}
    if not drawn:
        return plan
    cells = [_redrawn_cell(c, drawn, configs[str(out / c.study_dir)], plan) for c in plan.cells]
    return replace(plan, cells=tuple(cells))


def _strata(
    cells: list[PilotCell], configs: Mapping[str, RunConfig], out: Path
) -> dict[Stratum, StratumPlays]:
    """An experiment's strata: their units, uniform sizes and the surrogate's plays."""
    found: dict[Stratum, StratumPlays] = {}
    for cell in cells:
        study = configs[str(out / cell.study_dir)]
        keys = unit_keys(cell.unit, study.episodes.requests, study.episodes.users_per_profile)
        plays = _unit_plays([cell.study_dir, *cell.replay_dirs], cell.unit, out)
        for domain, chosen in cell.chosen.items():
            held = found.setdefault((study.seed, domain), StratumPlays(keys, len(chosen)))
            for key, rates in plays.get(domain, {}).items():
                held.plays[key].append(rates)
    return found


def _unit_plays(dirs: list[str], unit: str, out: Path) -> dict[str, dict[str, np.ndarray]]:
    """Per domain each unit's (key as text) target-purchase rate in each of ``dirs``."""
    key = CLUSTERS[unit]
    rates: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for run_dir in dirs:
        episodes: dict[tuple[str, str], list[float]] = defaultdict(list)
        with RunStore.read(out / run_dir) as store:
            for row in store.iter_episodes():
                episodes[(row["domain"], str(key(row)))].append(float(row[OUTCOME]))
        for (domain, unit_key), values in episodes.items():
            rates[domain][unit_key].append(float(np.mean(values)))
    return {d: {k: np.array(v) for k, v in units.items()} for d, units in rates.items()}


def _redrawn_cell(
    cell: PilotCell, drawn: Mapping[tuple[str, Stratum], Drawn], study: RunConfig, plan: PilotPlan
) -> PilotCell:
    """The cell with each domain's units as drawn, and its noise replays' units nested in
    them again."""
    if cell.unit == "domain":
        return cell
    keys = unit_keys(cell.unit, study.episodes.requests, study.episodes.users_per_profile)
    chosen, inclusion = {}, {}
    for d in cell.chosen:
        said = drawn[(cell.experiment, (study.seed, d))]
        if said.chances is None or said.priorities is None:  # its smallest uniforms
            picked = chosen_units(keys, 0.0, plan.seed, d, study.seed, cell.unit, said.size)
            chosen[d] = sorted(picked)
            continue
        chances, q = said.chances, said.priorities  # sequential Poisson: smallest u_i / q_i

        def rank(k: Hashable, d: str = d, q: dict[str, float] = q) -> tuple[float, str]:
            return unit_draw(plan.seed, d, study.seed, cell.unit, k) / q[str(k)], str(k)

        chosen[d] = sorted(str(k) for k in sorted(keys, key=rank)[: said.size])
        inclusion[d] = {k: chances[k] for k in chosen[d]}
    noise = (
        noise_units(
            cell.unit,
            chosen,
            study.episodes.requests,
            {study.seed},
            (plan.share, plan.noise_share),
            plan.seed,
            study,
        )
        if cell.noise_chosen
        else {}
    )
    return replace(cell, chosen=chosen, noise_chosen=noise, inclusion=inclusion)
