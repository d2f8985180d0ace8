"""Which strata a prediction-powered interval resamples within: the pilot is drawn within
each (seed, domain), but a stratum of three pilot units carries little of its own
variance, and one whose units all agree adds none; a contrast carried by a few users then
gets an interval that covers far less than its label says (issue 65: 70% at three units a
stratum). Strata are therefore merged, seed x domain, then domain, then one pool, until
each holds ``least`` pilot units (a study's ``[pilot] min_units_per_stratum``, 8 unless
its pilot file says otherwise).

Merging strata for the variance only (collapsed strata, Cochran 1977, section 5A.12) keeps
the point estimate and is conservative: the between-strata differences it folds in can
only add to the variance it reports. Where even one pool holds fewer than ``least`` pilot
units, the estimand gets no interval, and says why.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

FEWEST = 2  # pilot units a stratum needs for any resampling (a study's pilot asks for more)
Stratum = tuple[Any, str]  # (replicate, domain)

# The levels of merging, finest first: a stratum's group at each.
LEVELS: tuple[tuple[str, Callable[[Stratum], Hashable]], ...] = (
    ("seed x domain", lambda s: s),
    ("domain", lambda s: s[1]),
    ("pooled", lambda s: "all"),
)


@dataclass(frozen=True)
class Strata:
    """The strata an interval resamples within: the level's name and, per stratum, the
    (seed, domain) strata it merges."""

    level: str
    groups: dict[Hashable, list[Stratum]]

    @property
    def count(self) -> int:
        """How many strata the interval resamples within."""
        return len(self.groups)


def merged(pilot_units: Mapping[Stratum, int], least: int) -> Strata | None:
    """The finest level of merging at which every stratum holds ``least`` pilot units or
    more; None where even one pool holds fewer."""
    for level, key in LEVELS:
        groups: dict[Hashable, list[Stratum]] = defaultdict(list)
        for stratum in sorted(pilot_units, key=str):
            groups[key(stratum)].append(stratum)
        if all(sum(pilot_units[s] for s in members) >= least for members in groups.values()):
            return Strata(level, dict(groups))
    return None


def stacked(
    paired: Mapping[Stratum, np.ndarray], members: Sequence[Stratum], domains: Sequence[str]
) -> np.ndarray:
    """A merged stratum's units, each with its parts under its own domain (zeros under the
    others): (units, *pair, domains, *parts) from (units, *pair, *parts) per stratum, so
    that a draw's sums stay per domain as the metric finishes them."""
    found = []
    for stratum in members:
        units = paired[stratum]
        shape = (*units.shape[:2], len(domains), *units.shape[2:])
        placed = np.zeros(shape)
        placed[:, :, domains.index(stratum[1])] = units
        found.append(placed)
    return np.concatenate(found)


def design_weights(
    pilot_units: Mapping[Stratum, int],
    units: Mapping[Stratum, int],
    inclusion: Mapping[Stratum, np.ndarray] | None = None,
) -> dict[Stratum, np.ndarray]:
    """Per stratum the weight of each of its pilot units: the units it stands for, N_h /
    n_h, or one over its chance of being drawn where the pilot drew its units at chances
    of their own (``inclusion``: an active allocation, run/pilot_allocation.py); over the
    mean weight of its domain's pilot units, so that a pilot drawn at one share everywhere
    weighs every unit 1, exactly, and one drawn at other shares still estimates each
    domain's value over its units rather than over its pilot's (the Hajek form of
    Horvitz and Thompson's estimator)."""
    held = [s for s in pilot_units if pilot_units[s]]
    raw = {
        s: 1 / np.asarray(inclusion[s], dtype=float)
        if inclusion is not None
        else np.full(pilot_units[s], units[s] / pilot_units[s])
        for s in held
    }
    if len({float(w) for s in held for w in raw[s]}) <= 1:
        return {s: np.ones(pilot_units[s]) for s in held}
    domains: dict[str, list[Stratum]] = defaultdict(list)
    for s in held:
        domains[s[1]].append(s)
    found: dict[Stratum, np.ndarray] = {}
    for members in domains.values():
        mean = np.concatenate([raw[s] for s in members]).mean()
        found |= {s: raw[s] / mean for s in members}
    return found


def no_interval_said(pilot_n: int, least: int) -> str:
    """Why an estimand has no interval: too few pilot units even in one pool."""
    return (
        f"no interval: {pilot_n} pilot units, fewer than the {least} a stratum needs even "
        "pooled ([pilot] min_units_per_stratum)"
    )
