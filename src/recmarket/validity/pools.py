"""Where a held-out's negatives come from: each pool is one object of ``POOLS``.

Against negatives drawn at random from the whole category, a request that names the
held-out's kind ("a stapler") is a giveaway: nine of the ten candidates are not staplers.
The same-kind pool draws the held-out's own kind first (hard negatives, as sampled-metric
studies recommend), so a ranking must tell one stapler from another. Both draw only items
the person never reviewed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from recmarket.data.domain import Domain
from recmarket.data.items import kind_noun


@dataclass(frozen=True)
class DomainItems:
    """The items negatives are drawn from, by position: those the judged people reviewed
    (``universe``, domain item indexes), and by kind. A person the card leaves out adds no
    item: re-reviews that lift someone to the loader's count change no one's negatives."""

    domain: Domain
    universe: np.ndarray

    @property
    def size(self) -> int:
        """How many items negatives are drawn from."""
        return len(self.universe)

    @cached_property
    def kinds(self) -> tuple[str, ...]:
        """Each position's kind noun (``kind_noun``: "" where its title names none)."""
        return tuple(kind_noun(self.domain.items[i].evidence.title) for i in self.universe)

    @cached_property
    def by_kind(self) -> dict[str, np.ndarray]:
        """The positions of each named kind, in order."""
        found: dict[str, list[int]] = {}
        for position, kind in enumerate(self.kinds):
            if kind:
                found.setdefault(kind, []).append(position)
        return {kind: np.array(items) for kind, items in found.items()}

    def positions(self, items: np.ndarray) -> np.ndarray:
        """Where domain item indexes sit in the universe (each one must be in it)."""
        return np.searchsorted(self.universe, items)

    def kind_of(self, item: int) -> str:
        """The kind noun of a domain item of the universe."""
        return self.kinds[int(self.positions(np.array([item]))[0])]


class NegativePool(Protocol):
    """Draws a person's negatives from their category's untouched items."""

    @property
    def name(self) -> str:
        """The pool's name on the card."""
        ...

    @property
    def stream_unit(self) -> int:
        """The unit of the person's validation stream its draws come from."""
        ...

    def draw(
        self,
        items: DomainItems,
        target: int,
        touched: set[int],
        count: int,
        gen: np.random.Generator,
    ) -> tuple[int, ...]:
        """``count`` distinct untouched positions of ``items`` (``target`` and ``touched``
        are positions too; ``count`` never exceeds how many are untouched)."""
        ...


def _at_random(
    size: int, excluded: set[int], count: int, gen: np.random.Generator, drawn: list[int]
) -> tuple[int, ...]:
    """``drawn`` filled to ``count`` with items drawn uniformly from those not excluded."""
    while len(drawn) < count:
        pick = int(gen.integers(size))
        if pick not in excluded and pick not in drawn:
            drawn.append(pick)
    return tuple(drawn)


@dataclass(frozen=True)
class RandomPool:
    """Items drawn uniformly from the category (the protocol's first pool: its stream is the
    person's validation stream itself)."""

    name: str = "random"
    stream_unit: int = 0

    def draw(
        self,
        items: DomainItems,
        target: int,
        touched: set[int],
        count: int,
        gen: np.random.Generator,
    ) -> tuple[int, ...]:
        """Draw uniformly, rejecting touched items and repeats."""
        return _at_random(items.size, touched, count, gen, [])


@dataclass(frozen=True)
class SameKindPool:
    """Items of the held-out's own kind (its title's kind noun, ``data.items.kind_noun``)
    in a seeded order; where the category has fewer of them untouched than asked, the rest
    drawn uniformly from the category (the card counts how many negatives were of the
    kind). The first negative, which the 1:1 measures read, is of the kind wherever one
    exists."""

    name: str = "same-kind"
    stream_unit: int = 2  # unit 1 draws the person's profile (validity.scoring)

    def draw(
        self,
        items: DomainItems,
        target: int,
        touched: set[int],
        count: int,
        gen: np.random.Generator,
    ) -> tuple[int, ...]:
        """The kind's untouched items shuffled, then uniform ones."""
        kind = items.kinds[target]
        same = items.by_kind.get(kind, np.zeros(0, dtype=int)) if kind else np.zeros(0, dtype=int)
        untouched = [int(i) for i in gen.permutation(same) if int(i) not in touched]
        return _at_random(items.size, touched, count, gen, untouched[:count])


POOLS: dict[str, NegativePool] = {pool.name: pool for pool in (RandomPool(), SameKindPool())}


def pool_named(name: str) -> NegativePool:
    """The pool called ``name``; an unknown one fails with the known ones."""
    if name not in POOLS:
        raise ValueError(f"negative pool {name!r}: choose one of {', '.join(POOLS)}")
    return POOLS[name]
