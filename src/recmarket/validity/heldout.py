"""The held-out protocol: each person's latest interaction held out, the interactions before
it as their history, and negatives drawn from the items of the same category (the domain's
file) the person never touched.

A user simulator's fidelity is measured this way in the field (SimUSER, AlignUSER,
Agent4Rec each hold out a person's items against untouched ones); what differs between them
is the protocol, so every choice here is fixed and recorded: the latest interaction whatever
its rating (the review measures read every held-out; the ranking measures read those rated
POSITIVE_RATING or more), at most ``max_history`` interactions before it, ``negatives``
items drawn without replacement from a named seeded stream keyed by the person.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recmarket.data.domain import Domain, DomainFiles, domain_files, find_domains
from recmarket.data.episodes import Episode, read_episodes
from recmarket.data.raw import DataError
from recmarket.streams import Stream, rng

POSITIVE_RATING = 4.0  # a held-out rated this or more is a purchase the person liked
# Halves of the people: a parameter is fitted on one and reported on the other, so that no
# figure on the card was chosen by looking at it.
HALVES = ("all", "fit", "report")


@dataclass(frozen=True)
class HeldOut:
    """One person's held-out interaction, their history and the negatives it is judged
    against (indexes into the domain's items)."""

    episode: Episode
    negatives: tuple[int, ...]
    key: int  # the person's, as the streams key their draws (their user id's hash)

    @property
    def positive(self) -> bool:
        """Whether the person liked the held-out item: a positive for the ranking measures."""
        return self.episode.target.rating >= POSITIVE_RATING


def held_outs(
    domain: Domain, negatives: int, seed: int, min_history: int = 2, max_history: int = 19
) -> list[HeldOut]:
    """Every person of the domain with at least ``min_history`` interactions before their
    latest, in the order of their user id's hash; ``DataError`` where the domain has too few
    items to draw the negatives from."""
    rows = domain.interactions
    order = np.lexsort((rows.line, rows.timestamp, rows.user))
    users = rows.user[order]
    if not len(users):
        return []
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    ends = np.r_[starts[1:], len(users)]
    people = [
        (start, end) for start, end in zip(starts, ends, strict=True) if end - start > min_history
    ]
    spans = [order[max(start, end - 1 - max_history) : end] for start, end in people]
    found = []
    for episode, span, (start, end) in zip(
        read_episodes(domain, spans), spans, people, strict=True
    ):
        touched = {int(domain.item_index[r]) for r in order[start:end]}  # ever, not just lately
        untouched = len(domain.items) - len(touched)
        if untouched < negatives:
            raise DataError(
                f"domain {domain.name}: {episode.user_id} left only {untouched} items "
                f"untouched, fewer than the {negatives} negatives asked for; lower --negatives"
            )
        person = int(rows.user[span[-1]]) & 0x7FFF_FFFF_FFFF_FFFF  # its hash, as a seed key
        gen = rng(seed, domain.name, Stream.VALIDATION, person)
        drawn: list[int] = []
        while len(drawn) < negatives:
            pick = int(gen.integers(len(domain.items)))
            if pick not in touched and pick not in drawn:
                drawn.append(pick)
        found.append(HeldOut(episode, tuple(drawn), person))
    return found


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
