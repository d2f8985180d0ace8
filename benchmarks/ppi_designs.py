"""The replicate pilots of the coverage study (benchmarks/ppi_coverage.py), drawn as the tool
draws them: a pilot is a set of units of each stratum, as many as a design says and chosen
as its allocation chooses, read against the truth its estimand names.

A design is uniform (the same share of every stratum), neyman (the uniform pilot's units
spread by units times the surrogate's spread: run/pilot_allocation.neyman_sizes) or active
(each stratum's uniform size, drawn at chances that rise with the surrogate's replays'
disagreement: run/pilot_allocation.active_chances, sequential Poisson sampling); at the
docs' share or at three units a stratum (where a first pilot really is); for the realised
play of the reference or its expected behaviour (the mean of its plays, the interval
adding the draw noise its noise replays show, as ``[pilot] estimand = "expected"`` does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recmarket.analysis.ppi_units import UnitParts
from recmarket.run.pilot_allocation import StratumPlays, active_chances, neyman_allocated
from recmarket.run.pilot_file import PilotSettings
from recmarket.run.pilot_units import pilot_size

Stratum = tuple[object, str]
LEAST = PilotSettings().min_units_per_stratum  # what the tool's intervals rest on
NOISE_REPLAYS = PilotSettings().noise_replays  # the pilot's replays of its noise units
NOISE_SHARE = PilotSettings().noise_share
QUICK_UNITS = 3  # units a stratum of a first pilot (issue 65)


@dataclass(frozen=True)
class Design:
    """How a replicate pilot is drawn and what it is read against."""

    allocation: str  # uniform, neyman or active
    size: str  # "share": the docs' share; "3 a stratum"
    truth: str  # realised or expected
    looks: bool = False  # grown through the looks, the anytime interval read at each

    @property
    def name(self) -> str:
        return f"{self.allocation}, {self.size}, {self.truth}"


DESIGNS = (
    Design("uniform", "share", "realised", looks=True),
    Design("uniform", "share", "expected"),
    Design("uniform", f"{QUICK_UNITS} a stratum", "realised"),
    Design("uniform", f"{QUICK_UNITS} a stratum", "expected"),
    Design("neyman", "share", "realised"),
    Design("active", "share", "realised"),
)


@dataclass(frozen=True)
class Allocated:
    """A study's allocations, from the surrogate's plays of its units: neyman's size of
    each stratum, and active's chances and priorities of each stratum's units (in the
    population's unit order)."""

    sizes: dict[Stratum, int]
    chances: dict[Stratum, np.ndarray]
    priorities: dict[Stratum, np.ndarray]


def allocated(rates: dict[Stratum, np.ndarray], share: float) -> Allocated:
    """Both allocations at ``share``'s calls: ``rates`` per stratum holds each unit's
    target-purchase rate per surrogate play, (units, plays, cells)."""
    plays = {}
    for s, r in rates.items():
        stratum = StratumPlays(list(range(len(r))), pilot_size(len(r), share))
        for i, unit in enumerate(r):
            stratum.plays[str(i)] = [unit[:, c] for c in range(unit.shape[1])]
        plays[s] = stratum
    sizes = neyman_allocated(plays, LEAST)
    chances, priorities = {}, {}
    for s, p in plays.items():
        pi, q = active_chances(p)
        chances[s] = np.array([pi[str(i)] for i in range(len(p.keys))])
        priorities[s] = np.array([q[str(i)] for i in range(len(p.keys))])
    return Allocated(sizes, chances, priorities)


Picked = tuple[dict, "dict[Stratum, np.ndarray] | None"]


def _uniform(design: Design, orders: dict, uniforms: dict, allocation: Allocated, share: float):
    return {s: perm[: _size(design, len(perm), share)] for s, perm in orders.items()}, None


def _neyman(design: Design, orders: dict, uniforms: dict, allocation: Allocated, share: float):
    return {s: perm[: allocation.sizes[s]] for s, perm in orders.items()}, None


def _active(design: Design, orders: dict, uniforms: dict, allocation: Allocated, share: float):
    picked, chances = {}, {}
    for s, perm in orders.items():  # sequential Poisson: the smallest u_i / q_i
        ranked = np.argsort(uniforms[s] / allocation.priorities[s], kind="stable")
        picked[s] = ranked[: pilot_size(len(perm), share)]
        chances[s] = allocation.chances[s][picked[s]]
    return picked, chances


DRAWS_OF = {"uniform": _uniform, "neyman": _neyman, "active": _active}


def chosen(
    design: Design,
    orders: dict,
    uniforms: dict[Stratum, np.ndarray],
    allocation: Allocated | None,
    share: float,
) -> Picked:
    """The replicate's pilot: per stratum the chosen units' indices, in the order of their
    draws (or, where a whole (seed, domain) is the unit and ``allocation`` is None, per
    domain its chosen strata: every allocation is uniform there), and each chosen unit's
    chance where the design draws at chances of their own."""
    if allocation is None:  # a domain's seeds, in the replicate's order
        n = {d: _size(design, len(seeds), share) for d, seeds in orders.items()}
        return {d: seeds[: n[d]] for d, seeds in orders.items()}, None
    return DRAWS_OF[design.allocation](design, orders, uniforms, allocation, share)


def _size(design: Design, units: int, share: float) -> int:
    if design.size == "share":
        return pilot_size(units, share)
    return min(QUICK_UNITS, units)


def pilot_parts(
    full: UnitParts,
    picked: dict,
    whole_units: bool,
    plays: dict[Stratum, np.ndarray] | None = None,
    chances: dict[Stratum, np.ndarray] | None = None,
) -> UnitParts:
    """The replicate pilot's parts of ``full`` (another prediction of the same units, or
    the population's own): the chosen units first in each stratum; with ``plays`` (the
    reference's, (units, plays, arms, parts)), the expected estimand's noise replays on the
    first NOISE_SHARE of them (the tool's nesting: their smallest draws)."""
    noise: dict[Stratum, np.ndarray] = {}
    if whole_units:
        taken = {s for seeds in picked.values() for s in seeds}
        observed = {s: o if s in taken else o[:0] for s, o in full.observed.items()}
        if plays is not None:
            for seeds in picked.values():
                for s in seeds[: pilot_size(len(seeds), NOISE_SHARE)]:
                    noise[s] = plays[s][:, : 1 + NOISE_REPLAYS]
        return UnitParts(full.predicted, observed, noise=noise or None)
    predicted, observed = {}, {}
    for s, f in full.predicted.items():
        first = np.asarray(picked[s])
        rest = np.setdiff1d(np.arange(len(f)), first)
        predicted[s] = f[np.concatenate([first, rest]).astype(int)]
        observed[s] = full.observed[s][first]
        if plays is not None:
            noisy = first[: pilot_size(len(first), NOISE_SHARE)]
            noise[s] = plays[s][noisy, : 1 + NOISE_REPLAYS]
    return UnitParts(predicted, observed, noise=noise or None, inclusion=chances)
