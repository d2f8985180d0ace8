"""The units of a cell that are played: every episode, or those of a chosen set of units
(a pilot's), named by their kind (``experiments.units.CLUSTERS``) and, per domain, their
keys. The runner plays what a ``UnitChoice`` holds without knowing who chose it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from recmarket.data.episodes import Request
from recmarket.experiments.units import CLUSTERS

# A request's unit key, as CLUSTERS reads it off the request's stored row.
REQUEST_UNITS: dict[str, Callable[[Request], Hashable]] = {
    "request": lambda r: r.order,
    "user": lambda r: r.sim_user,
    "profile": lambda r: r.profile,
    "domain": lambda r: 0,
}
assert REQUEST_UNITS.keys() == CLUSTERS.keys()


@dataclass(frozen=True)
class UnitChoice:
    """The units of one cell that are played: their kind and, per domain, the chosen keys."""

    unit: str
    chosen: Mapping[str, frozenset[str]]

    def plays(self, request: Request) -> bool:
        """Whether ``request`` is played."""
        keys = self.chosen.get(request.episode.domain, frozenset())
        return str(REQUEST_UNITS[self.unit](request)) in keys

    def holds(self, row: Mapping[str, Any]) -> bool:
        """Whether a stored episode row belongs to a chosen unit."""
        return str(CLUSTERS[self.unit](row)) in self.chosen.get(row["domain"], frozenset())

    def count(self) -> int:
        """Units chosen over the domains."""
        return sum(len(keys) for keys in self.chosen.values())
