"""Platform catalogs (Section 4.1, Appendices A.1, A.2, A.4).

Every item gets one primary platform uniformly at random and is copied to each other
platform independently with probability rho. A catalog then keeps at most C regular items
(a seeded random subset) but always keeps the targets assigned to it: the cap thins the
competition, never a platform's chance to carry a target. Cyclic rotations reassign whole
inventories to platform ids (R1: platform j gets the inventory of j+1), while policies stay
with the ids.

A late entrant draws its own catalog from its own stream: each item with the
probability that an incumbent carries it (1/N as primary, else rho), then the same cap, so
the incumbents' catalogs are exactly those of the market without it.

All draws come from the domain's catalog streams and have fixed shapes, so markets that
differ only in rho share their primary assignments and copy uniforms (common random
numbers), and a rotation moves exactly the same inventories.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recmarket.streams import Stream, rng


@dataclass(frozen=True)
class Catalogs:
    """Which platform carries which item."""

    membership: np.ndarray  # bool (items, platforms): platform p carries item i

    @property
    def n_platforms(self) -> int:
        """The number of platforms."""
        return self.membership.shape[1]

    def members(self, platform: int) -> np.ndarray:
        """Item indices in the platform's catalog, ascending."""
        return np.flatnonzero(self.membership[:, platform])

    def carriers(self, item: int) -> np.ndarray:
        """Bool per platform: does it carry ``item``?"""
        return self.membership[item]

    def sizes(self) -> np.ndarray:
        """Each platform's catalog size."""
        return self.membership.sum(axis=0)

    def rotated(self, steps: int) -> Catalogs:
        """Platform j receives the inventory originally assigned to platform j + steps."""
        n = self.n_platforms
        return Catalogs(self.membership[:, (np.arange(n) + steps) % n])


def assign_catalogs(
    n_items: int,
    targets: np.ndarray,
    *,
    n_platforms: int,
    rho: float,
    cap: int,
    seed: int,
    domain: str,
    rotation: int = 0,
    entrants: int = 0,
) -> Catalogs:
    """Build the N catalogs of a domain's item universe, and then those of ``entrants`` late
    platforms; ``targets`` are protected from the cap."""
    gen = rng(seed, domain, Stream.CATALOG_ASSIGNMENT)
    primary = gen.integers(n_platforms, size=n_items)
    membership = gen.random((n_items, n_platforms), dtype=np.float32) < rho
    membership[np.arange(n_items), primary] = True

    is_target = np.zeros(n_items, dtype=bool)
    is_target[targets] = True
    regular = membership & ~is_target[:, None]
    over = np.flatnonzero(regular.sum(axis=0) > cap)
    if len(over):
        priority = rng(seed, domain, Stream.CATALOG_CAP).random(
            (n_items, n_platforms), dtype=np.float32
        )
        for p in over:
            candidates = np.flatnonzero(regular[:, p])
            keep = candidates[np.argsort(priority[candidates, p], kind="stable")[:cap]]
            membership[candidates, p] = False
            membership[keep, p] = True
    catalogs = Catalogs(membership)
    if rotation:
        catalogs = catalogs.rotated(rotation)
    if not entrants:
        return catalogs
    share = 1 / n_platforms + rho * (1 - 1 / n_platforms)
    columns = [
        _entrant_catalog(rng(seed, domain, Stream.ENTRANT_CATALOG, e), share, is_target, cap)
        for e in range(entrants)
    ]
    return Catalogs(np.column_stack([catalogs.membership, *columns]))


def _entrant_catalog(
    gen: np.random.Generator, share: float, is_target: np.ndarray, cap: int
) -> np.ndarray:
    n_items = len(is_target)
    carried = gen.random(n_items, dtype=np.float32) < share
    priority = gen.random(n_items, dtype=np.float32)
    regular = np.flatnonzero(carried & ~is_target)
    if len(regular) > cap:
        carried[regular[np.argsort(priority[regular], kind="stable")[cap:]]] = False
    return carried
