"""The units a study's episodes depend on together, finest first: what its intervals
resample (analysis/bootstrap.py) and what a pilot draws (run/pilot_units.py). Each is
nested in the next: a request belongs to one simulated user, a user has one profile, and
a domain holds them all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from recmarket.catalogue.conditions import condition
from recmarket.catalogue.scopes import SCOPES
from recmarket.config import RunConfig

# A stored episode row's unit key at each level.
CLUSTERS: dict[str, Callable[[Mapping[str, Any]], Hashable]] = {
    "request": lambda r: r["ord"],
    "user": lambda r: r["sim_user"],
    "profile": lambda r: r["profile"],
    "domain": lambda r: 0,
}


OWN_MEMORY = ("user", "profile")  # memories a single user's episodes build


def coarsest(levels: Sequence[str]) -> str:
    """The unit every arm's dependence is nested in."""
    order = list(CLUSTERS)
    return max(levels, key=order.index)


def memory_unit(config: RunConfig) -> str:
    """What a cell's episodes depend on together: nothing across requests without
    reputation; the memory set under it (a user, a profile, everyone in the domain); every
    stream of a domain where platforms learn from all of them."""
    if config.market.adaptive:
        return "domain"
    if not condition(config.condition).reputation:
        return "request"
    return SCOPES.get(config.reputation_scope).unit


def own_memory(config: RunConfig) -> bool:
    """Whether a user's records are their own (or their profile's): what only a user's
    rounds build up, whether or not the platforms also learn from every stream."""
    return (
        condition(config.condition).reputation
        and SCOPES.get(config.reputation_scope).unit in OWN_MEMORY
    )
