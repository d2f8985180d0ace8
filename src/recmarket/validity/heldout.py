"""The held-out protocol: each person's latest interaction held out, the interactions before
it as their history, and negatives drawn from the items of the same category (the domain's
file) the person never touched.

A user simulator's fidelity is measured this way in the field (SimUSER, AlignUSER,
Agent4Rec each hold out a person's items against untouched ones); what differs between them
is the protocol, so every choice here is fixed and recorded: the latest interaction whatever
its rating (the review measures read every held-out; the ranking measures read those rated
POSITIVE_RATING or more), at most ``max_history`` interactions before it, less every earlier
review of the held-out's own item (a re-purchase, a variant under one parent item: kept, it
would put the answer in the history, as episode construction knows, ``data.episodes``), and
for each negative pool (``POOLS``) the largest number of negatives asked for, drawn from a
named seeded stream keyed by the person, so a protocol of fewer candidates reads the first
of them (a 1-of-10 draw is the head of the 1-of-20 one).

A person or a category that cannot be judged is skipped and listed (``Skipped``), never the
rest: real data has categories of one person, and one of them must not stop a card of many.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recmarket.data.domain import Domain, DomainFiles, domain_files, find_domains
from recmarket.data.episodes import Episode, read_episodes
from recmarket.data.raw import DataError
from recmarket.streams import Stream, rng
from recmarket.validity.pools import POOLS, DomainItems

POSITIVE_RATING = 4.0  # a held-out rated this or more is a purchase the person liked
# Halves of the people: a parameter is fitted on one and reported on the other, so that no
# figure on the card was chosen by looking at it.
HALVES = ("all", "fit", "report")
# The distinct items a person needs, as the loader asks of reviews (``load_domain``): five
# reviews of which some repeat an item are fewer interactions than the loader meant.
MIN_ITEMS = 5


@dataclass(frozen=True)
class HeldOut:
    """One person's held-out interaction, their history and, by pool, the negatives it is
    judged against (indexes into the domain's items; the largest draw asked for)."""

    episode: Episode
    pools: Mapping[str, tuple[int, ...]]
    key: int  # the person's, as the streams key their draws (their user id's hash)
    repeats: int = 0  # the person's earlier reviews of the held-out item, out of the history

    @property
    def positive(self) -> bool:
        """Whether the person liked the held-out item: a positive for the ranking measures."""
        return self.episode.target.rating >= POSITIVE_RATING

    def negatives(self, pool: str, count: int) -> tuple[int, ...] | None:
        """The first ``count`` negatives of ``pool``; None where the person's category left
        fewer untouched items than that."""
        drawn = self.pools[pool]
        return drawn[:count] if len(drawn) >= count else None


@dataclass(frozen=True)
class Skipped:
    """A person, or a whole category (person ""), the card leaves out, or lines of a file
    it could not use (``count`` of them), and why."""

    domain: str
    person: str
    reason: str
    count: int = 1


@dataclass
class Drawn:
    """A domain's held-outs, what was left out, and how many held-outs had been reviewed
    by their person before (those earlier reviews removed from the history)."""

    held: list[HeldOut] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    repeats: int = 0
    items: DomainItems | None = None  # what the negatives were drawn from (None: no one)

    def of_kind(self, held: Sequence[HeldOut]) -> dict[str, tuple[int, int]]:
        """By pool, how many of ``held``'s negatives share their held-out's kind, of all."""
        found: dict[str, tuple[int, int]] = {}
        if self.items is None:
            return found
        kind = self.items.kind_of
        for h in held:
            own = kind(h.episode.target.item_index)
            for pool, negatives in h.pools.items():
                same, total = found.get(pool, (0, 0))
                alike = sum(own != "" and kind(i) == own for i in negatives)
                found[pool] = (same + alike, total + len(negatives))
        return found


def held_outs(
    domain: Domain,
    negatives: int,
    seed: int,
    pools: Sequence[str] = tuple(POOLS),
    min_history: int = 2,
    max_history: int = 19,
) -> Drawn:
    """Every person of the domain with at least ``min_history`` interactions before their
    latest (their own earlier reviews of it left out) and MIN_ITEMS distinct items, in the
    order of their user id's hash, each with up to ``negatives`` negatives of every pool
    drawn from the items such people reviewed; the others listed as skipped, with why."""
    drawn = Drawn()
    rows = domain.interactions
    order = np.lexsort((rows.line, rows.timestamp, rows.user))
    users = rows.user[order]
    if not len(users):
        return drawn
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    ends = np.r_[starts[1:], len(users)]
    spans, people = [], []
    for start, end in zip(starts, ends, strict=True):
        person = order[start:end]
        target = domain.item_index[person[-1]]
        earlier = person[:-1][domain.item_index[person[:-1]] != target]
        spans.append(np.r_[earlier[-max_history:], person[-1]])
        people.append(person)
    distinct = [len(np.unique(domain.item_index[p])) for p in people]
    judged = [
        len(s) - 1 >= min_history and d >= MIN_ITEMS for s, d in zip(spans, distinct, strict=True)
    ]
    reviewed = [domain.item_index[p] for p, ok in zip(people, judged, strict=True) if ok]
    items = DomainItems(domain, np.unique(np.concatenate(reviewed)) if reviewed else np.zeros(0))
    drawn.items = items
    episodes = read_episodes(domain, spans)
    for episode, span, person, count, ok in zip(
        episodes, spans, people, distinct, judged, strict=True
    ):
        if not ok:
            drawn.skipped.append(
                Skipped(
                    domain.name,
                    episode.user_id,
                    f"{len(span) - 1} reviews of other items before the held-out and "
                    f"{count} distinct items; the card needs {min_history} and {MIN_ITEMS}",
                )
            )
            continue
        touched = {int(i) for i in items.positions(domain.item_index[person])}  # ever
        untouched = items.size - len(touched)
        if untouched < 1:
            drawn.skipped.append(
                Skipped(
                    domain.name,
                    episode.user_id,
                    f"reviewed every one of the {items.size} items the category's people "
                    "reviewed: no untouched item to judge the held-out against",
                )
            )
            continue
        if untouched < negatives:
            drawn.skipped.append(
                Skipped(
                    domain.name,
                    episode.user_id,
                    f"only {untouched} items untouched: judged among at most "
                    f"{untouched + 1} candidates, not {negatives + 1}",
                )
            )
        key = int(rows.user[span[-1]]) & 0x7FFF_FFFF_FFFF_FFFF  # its hash, as a seed key
        target = episode.target.item_index
        where = int(items.positions(np.array([target]))[0])
        drawn_by = {
            name: tuple(
                int(items.universe[p])
                for p in POOLS[name].draw(
                    items,
                    where,
                    touched,
                    min(negatives, untouched),
                    _pool_rng(seed, domain, key, name),
                )
            )
            for name in pools
        }
        repeats = int(np.sum(domain.item_index[person[:-1]] == target))
        drawn.repeats += repeats > 0
        drawn.held.append(HeldOut(episode, drawn_by, key, repeats))
    return drawn


def _pool_rng(seed: int, domain: Domain, key: int, pool: str) -> np.random.Generator:
    """A person's stream for one pool: the random pool's is the protocol's first stream
    (its negatives are those the card drew before pools were named)."""
    unit = POOLS[pool].stream_unit
    return rng(seed, domain.name, Stream.VALIDATION, key, *((unit,) if unit else ()))


def in_half(held: HeldOut, half: str) -> bool:
    """Whether the person belongs to ``half`` (HALVES): a fixed split by their id's hash,
    the same in every domain and run."""
    if half not in HALVES:
        raise ValueError(f"half {half!r}: choose one of {', '.join(HALVES)}")
    return half == "all" or (held.key % 2 == 0) == (half == "fit")


def domain_files_of(data: Path, domains: Sequence[str]) -> list[DomainFiles]:
    """The files of ``domains`` in ``data`` (all of its domains where none is named)."""
    files = [domain_files(data, d) for d in domains] if domains else find_domains(data)
    if not files:
        raise DataError(f"{data}: no domain found (expected {{Category}}.jsonl[.gz] with meta)")
    return files
