"""A pilot's units as the prediction-powered estimate reads them: per (seed, domain)
stratum, every unit's summed parts as the surrogate predicts them (its replays' mean) and,
for the pilot's units, as the pilot backend played them (the estimate: ``analysis.ppi``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import Row
from recmarket.analysis.choices import expected
from recmarket.analysis.ppi_strata import Stratum
from recmarket.experiments.units import CLUSTERS


@dataclass(frozen=True)
class UnitParts:
    """Per stratum, every unit's summed parts as the surrogate predicts them (the mean over
    its replays) and, for the pilot's units, as the pilot backend played them; shape
    (units, arms, parts), the pilot's units first. A cross-fitted surrogate's ``corrected``
    holds the pilot units' predictions by the fold that never saw them (the correction's),
    ``predicted`` the folds' mean (the bulk's)."""

    predicted: dict[Stratum, np.ndarray]
    observed: dict[Stratum, np.ndarray]
    corrected: dict[Stratum, np.ndarray] | None = None
    # the expected estimand: per stratum, the pilot backend's plays of its noise units,
    # (units, plays, arms, parts), its own play first; their spread is the draw noise
    noise: dict[Stratum, np.ndarray] | None = None
    # a pilot drawn at chances of its own (an active allocation): per stratum each pilot
    # unit's chance of being drawn, in the pilot's order; None: a share of each stratum
    inclusion: dict[Stratum, np.ndarray] | None = None

    @property
    def pilot_units(self) -> int:
        """Units the pilot played, over the strata."""
        return sum(len(o) for o in self.observed.values())

    @property
    def units(self) -> int:
        """Units of the bulk, over the strata."""
        return sum(len(p) for p in self.predicted.values())

    def on_pilot(self, stratum: Stratum) -> np.ndarray:
        """The surrogate's predictions of the stratum's pilot units, as the correction
        takes them."""
        if self.corrected is not None:
            return self.corrected[stratum]
        return self.predicted[stratum][: len(self.observed[stratum])]


def _sums(
    arms: Sequence[Sequence[Row]], parts: Callable[[Row], Sequence[float]], cluster: str
) -> dict[Stratum, dict[Hashable, np.ndarray]]:
    key = CLUSTERS[cluster]
    found: dict[Stratum, dict[Hashable, np.ndarray]] = defaultdict(dict)
    for a, rows in enumerate(arms):
        for r in rows:
            stratum, unit = found[(r.get("replicate"), r["domain"])], key(r)
            values = np.asarray(parts(r), dtype=float)
            if unit not in stratum:
                stratum[unit] = np.zeros((len(arms), len(values)))
            stratum[unit][a] += values
    return found


def _predicted(
    plays: Sequence[Sequence[Sequence[Row]]], parts: Callable[[Row], Sequence[float]], cluster: str
) -> dict[Stratum, dict[Hashable, np.ndarray]]:
    """Each unit's parts, the mean over the plays."""
    played = [_sums(arms, parts, cluster) for arms in plays]
    found = {}
    for stratum, units in played[0].items():
        shape = next(iter(units.values())).shape
        found[stratum] = {
            u: np.mean([p[stratum].get(u, np.zeros(shape)) for p in played], axis=0) for u in units
        }
    return found


Folds = tuple[Sequence[Sequence[Sequence[Sequence[Row]]]], Mapping[tuple[Any, str, str], int]]


def unit_parts(
    replays: Sequence[Sequence[Sequence[Row]]],
    pilot: Sequence[Sequence[Row]],
    parts: Callable[[Row], Sequence[float]],
    cluster: str,
    folds: Folds | None = None,
    *,
    exact_choices: bool = True,
    noise: Sequence[Sequence[Sequence[Row]]] = (),
    inclusion: Mapping[tuple[Any, str, str], float] | None = None,
) -> UnitParts:
    """Each unit's parts: ``replays`` holds the surrogate's plays (each a list of arms'
    rows), ``pilot`` the pilot's arms' rows (its units only). ``folds``, where the
    surrogate was calibrated on the pilot: each fold's surrogate's plays (as ``replays``)
    and each pilot unit's fold by (seed, domain, unit key as text). A surrogate's row that
    carries its decision's answers counts at their expectation (analysis/choices.py)
    unless not ``exact_choices`` (what they bought); the pilot's rows count as played.
    ``noise``, for the expected estimand: the pilot backend's noise replays (each a list
    of arms' rows, of its noise units only). ``inclusion``, where the pilot was drawn at
    chances of its own (an active allocation): each pilot unit's chance by (seed, domain,
    unit key as text)."""
    seen, predict = _sums(pilot, parts, cluster), expected(parts) if exact_choices else parts
    each = [_predicted(p, predict, cluster) for p in folds[0]] if folds else []
    if each:
        mean = {
            s: {u: np.mean([e[s][u] for e in each], axis=0) for u in units}
            for s, units in each[0].items()
        }
    else:
        mean = _predicted(replays, predict, cluster)
    predicted, observed, corrected, chances = {}, {}, {}, {}
    for stratum, units in mean.items():
        held = seen.get(stratum, {})
        order = sorted(held, key=str) + sorted((u for u in units if u not in held), key=str)
        shape = next(iter(units.values())).shape
        predicted[stratum] = np.stack([units[u] for u in order])
        observed[stratum] = (
            np.stack([held[u] for u in order[: len(held)]]) if held else np.zeros((0, *shape))
        )
        if folds:
            own = [each[folds[1][(*stratum, str(u))]][stratum][u] for u in order[: len(held)]]
            corrected[stratum] = np.stack(own) if own else np.zeros((0, *shape))
        if inclusion is not None:
            chances[stratum] = np.array([inclusion[(*stratum, str(u))] for u in order[: len(held)]])
    return UnitParts(
        predicted,
        observed,
        corrected if folds else None,
        _noise(seen, noise, parts, cluster),
        chances if inclusion is not None else None,
    )


def _noise(
    seen: dict[Stratum, dict[Hashable, np.ndarray]],
    noise: Sequence[Sequence[Sequence[Row]]],
    parts: Callable[[Row], Sequence[float]],
    cluster: str,
) -> dict[Stratum, np.ndarray] | None:
    """Per stratum each noise unit's plays by the pilot backend, its own play first."""
    if not noise:
        return None
    replayed = [_sums(arms, parts, cluster) for arms in noise]
    found = {}
    for stratum, units in replayed[0].items():
        found[stratum] = np.stack(
            [
                np.stack([seen[stratum][u], *(r[stratum][u] for r in replayed)])
                for u in sorted(units, key=str)
            ]
        )
    return found
