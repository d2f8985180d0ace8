"""Which of a study's units a pilot backend plays: a random share of them, drawn once for
the whole study, so that every cell's pilot holds the same units and its contrasts stay
paired as the bulk's are.

A unit is what the study's intervals resample (``analysis.bootstrap.CLUSTERS``): a request
where no cell keeps state across requests, a simulated user with its whole ordered history
under Local reputation, a profile or a whole (seed, domain) where one memory or one
learning market couples more. An experiment's unit is the coarsest its cells need, so a
user drawn for LocalRep is played in NoRep too.

Each unit gets one uniform from the named stream ``Stream.PILOT``, keyed by the pilot seed,
the domain, the cell's seed and the unit; a stratum (seed, domain) takes the units with the
smallest ceil(share x n). Where the unit is a whole (seed, domain), a domain's seeds are
ranked so, and the pilot plays the smallest ceil(share x seeds) of them. Each stratum plays
enough units that the pilot, pooled, reaches the units its intervals need
(``fewest_a_stratum``), where the study has them. The draws nest: a
larger share keeps every unit of a smaller one, so growing a pilot plays only the new
units.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from recmarket.experiments.units import coarsest
from recmarket.profiles import PROFILE_NAMES
from recmarket.streams import Stream, brief

# The fewest pilot units a stratum holds where it has two or more: the bootstrap resamples
# n - 1 of a stratum's n units, so one unit would leave its stratum without a spread.
FEWEST = 2


def unit_keys(unit: str, requests: int, users_per_profile: int) -> list[Hashable]:
    """Every key a domain's requests can carry at ``unit``, known from the settings alone
    (requests are dealt round-robin to the profiles' users: data/episodes.py)."""
    keys: dict[str, Callable[[], list[Hashable]]] = {
        "request": lambda: list(range(requests)),
        "user": lambda: list(range(len(PROFILE_NAMES) * users_per_profile)),
        "profile": lambda: list(PROFILE_NAMES),
        "domain": lambda: [0],
    }
    return keys[unit]()


def unit_draw(pilot_seed: int, domain: str, seed: int, unit: str, key: Hashable) -> float:
    """The unit's one uniform of the pilot: its rank in every draw of a pilot's units."""
    tag = zlib.crc32(f"{unit}:{key}".encode())
    return float(brief(pilot_seed, domain, Stream.PILOT, seed, tag).random())


def pilot_size(units: int, share: float, fewest: int = FEWEST) -> int:
    """Units a pilot at ``share`` plays of a stratum's ``units``: ceil(share x units), at
    least ``fewest`` (FEWEST unless asked for more) where the stratum has them."""
    return min(units, max(math.ceil(share * units), min(max(fewest, FEWEST), units)))


def fewest_a_stratum(least: int, strata: int) -> int:
    """Pilot units each of ``strata`` strata plays at least so that, pooled, they reach the
    ``least`` an interval needs ([pilot] min_units_per_stratum: analysis/ppi_strata.py
    merges strata until each holds that many)."""
    return max(FEWEST, math.ceil(least / max(strata, 1)))


def _smallest(
    keys: list[Any], share: float, draw: Callable[[Any], float], fewest: int
) -> list[Any]:
    return sorted(keys, key=lambda k: (draw(k), str(k)))[: pilot_size(len(keys), share, fewest)]


def chosen_units(
    keys: Iterable[Hashable],
    share: float,
    pilot_seed: int,
    domain: str,
    seed: int,
    unit: str,
    fewest: int = FEWEST,
) -> frozenset[str]:
    """The keys (as text) a pilot at ``share`` plays in one (seed, domain) stratum, at
    least ``fewest`` of them."""
    ranked = _smallest(
        list(keys), share, lambda k: unit_draw(pilot_seed, domain, seed, unit, k), fewest
    )
    return frozenset(str(k) for k in ranked)


def chosen_seeds(
    seeds: Iterable[int], share: float, pilot_seed: int, domain: str, fewest: int = FEWEST
) -> set[int]:
    """The seeds whose whole ``domain`` a pilot at ``share`` plays, where that is the unit,
    at least ``fewest`` of them."""

    def draw(seed: int) -> float:
        return unit_draw(pilot_seed, domain, seed, "domain", 0)

    return set(_smallest(sorted(set(seeds)), share, draw, fewest))


def unit_folds(
    keys: Iterable[str], folds: int, pilot_seed: int, domain: str, seed: int, unit: str
) -> dict[str, int]:
    """Each chosen unit's fold for cross-fitting: the units ranked by their draw, dealt to
    the folds in turn, so the folds are as even as the stratum allows."""
    ranked = sorted(keys, key=lambda k: (unit_draw(pilot_seed, domain, seed, unit, k), k))
    return {k: i % folds for i, k in enumerate(ranked)}


def study_unit(units: Iterable[str]) -> str:
    """The unit every cell of an experiment can be played by: the coarsest of theirs."""
    return coarsest(list(units))
