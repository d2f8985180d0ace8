"""Reputation scopes: whose records an episode reads and writes.

``local`` keeps one memory set per simulated user (Local-12, the paper's), ``style`` one per
profile (Style-6), ``shared`` one for everybody (Shared-1). Another package adds a scope
under the ``recmarket.scopes`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Protocol

from pydantic import BaseModel

from recmarket.catalogue.registry import NameIn, NoParams, Registry
from recmarket.profiles import PROFILE_NAMES


class Asking(Protocol):
    """What a scope keys a memory set by: the request's simulated user and profile
    (``recmarket.data.episodes.Request`` has them)."""

    @property
    def sim_user(self) -> int:
        """The simulated user who asks."""
        ...

    @property
    def profile(self) -> str:
        """That user's profile."""
        ...


@dataclass(frozen=True)
class ReputationScope:
    """Whose records an episode reads and writes: the key of its memory set, the unit that
    holds one set (what the bootstrap resamples: ``analysis.bootstrap.CLUSTERS``), how many
    sets a domain has, and whether people other than the user write into the set the user
    reads (a platform that forges feedback can reach only such a set)."""

    name: str
    unit: str
    key: Callable[[Asking], str]
    sets: Callable[[int], int]  # users per profile -> memory sets per domain
    strangers_write: bool
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none


def probe(item: ReputationScope, params: object) -> None:
    """The contract, checked when a run names the scope: a resampling unit, and at least
    one memory set a domain for any number of users per profile."""
    if not item.unit.strip():
        raise ValueError("its unit is empty")
    for users in (1, 4):
        sets = item.sets(users)
        if not isinstance(sets, int) or sets < 1:
            raise ValueError(f"sets({users}) gave {sets!r}; it must be a count of at least 1")


SCOPES: Registry[ReputationScope] = Registry(
    "reputation scope", "recmarket.scopes", ReputationScope, lambda s: s.name, probe
)
SCOPES.register(
    ReputationScope(
        "local",
        "user",
        lambda r: f"user-{r.sim_user}",
        lambda users: len(PROFILE_NAMES) * users,
        strangers_write=False,
    )
)
SCOPES.register(
    ReputationScope(
        "style", "profile", lambda r: f"profile-{r.profile}", lambda _: len(PROFILE_NAMES), True
    )
)
SCOPES.register(ReputationScope("shared", "domain", lambda r: "shared", lambda _: 1, True))

# A scope's name in a setting: any registered scope.
ScopeName = Annotated[str, NameIn(SCOPES, probed=True)]
