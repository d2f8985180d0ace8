"""How a spec's schedule shrinks under ``--scale``: breadth first, a user's rounds last.

A cell plays, in each domain, seeds x 6 profiles x S simulated users a profile x the rounds
each user plays. Where users remember (LocalRep with each user's or each profile's own
records), a user's rounds are what lets records build up: cut by rounds to a tenth, each
user of the accountability cells played 5 of its 50 rounds and its histories held a median
of 0-1 records per platform (issue 63), so no mechanism that reads records could act.

Such a spec is therefore cut in breadth first, to one seed and then to one simulated user a
profile (two where a profile shares one memory, which one user alone would make a user's
own), and only then in rounds. A user keeps at least half its rounds, and at least
``RECORD_ROUNDS`` x N x W / 2 of them (capped at its full count): N x W / 2 rounds are the
fewest in which each of N platforms could gather half the window W, were every round a
purchase spread evenly; the quarter more stands for rounds without a purchase and uneven
attention (at the defaults, 30 rounds left the accountability cells' median history at 4-4.5
records and 38 at 5-6: a diagnostic of the schedule, measured before any contrast was read).

A memory that spans a whole domain (one history shared by everyone, adaptive platforms)
reads episodes, not users: its seeds are its only independent replicates, and one seed
would leave its cells no interval. Such a cell keeps its seeds and is cut in episodes, as is
a cell without memory, whose episodes are exchangeable, wherever the spec has no memory of
users' own. Where a spec holds both (the frontier, the attacks, the scopes), each cell gets
the cut its memory needs, and each cell without memory is played on both schedules, so
that every contrast with it stays paired on the same requests: the copy on the remembering
users' schedule is named ``TWIN``. A contrast between a user's own memory and a domain's
(the attacks' losses against the shared window) then has no pair below full scale. A cell
whose users keep their own records while its platforms learn from every stream (an attacker
that watches its share) is cut as the records need, but depends on its domain as a whole:
one seed would leave it no interval, so where a spec holds one, the cells cut in breadth
keep two seeds (every one of them, so that its contrasts with the honest cell and its twin
stay paired).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from recmarket.config import RunConfig
from recmarket.experiments.units import memory_unit, own_memory
from recmarket.profiles import PROFILE_NAMES

RECORD_ROUNDS = 1.25  # rounds kept, in units of N x W / 2 (see the module's docstring)
MIN_REQUESTS = 12  # one episode a profile and user, twice, in a domain at any scale
DOMAIN_WIDE_SEEDS = 2  # the fewest replicates a t interval over seeds can be made from
TWIN = "schedule=own-memory"  # a memoryless cell's copy played beside users who remember
ROUNDS, EPISODES = "rounds", "episodes"  # the two cuts: breadth before rounds, or episodes


@dataclass(frozen=True)
class Schedule:
    """How one spec's cells are cut at a scale: where users remember, the seeds kept (the
    first ones), the simulated users a profile and each user's rounds; elsewhere episodes."""

    scale: float
    breadth_first: bool  # some users remember on their own: seeds and users cut before rounds
    spec_seeds: int  # replicates at full scale
    floor_rounds: float  # a remembering user's fewest rounds (breadth-first specs)
    seeds: int  # replicates kept
    users: int | None  # simulated users a profile kept (None: each cell's own)
    shared_memory: bool = False  # a cell's memory spans a whole domain, and no user's own

    @classmethod
    def of(cls, full: Sequence[RunConfig], spec_seeds: int, scale: float) -> Schedule:
        """The schedule of a spec whose cells at full scale are ``full``.

        Breadth is cut to the user-rounds the scale pays for once each user keeps its
        rounds: simulated users a profile first, seeds last, as seeds are the replicates an
        interval rests on."""
        breadth_first = scale < 1 and any(map(own_memory, full))
        shared = any(memory_unit(c) == "domain" and not own_memory(c) for c in full)
        full = [c for c in full if own_memory(c) or memory_unit(c) != "domain"]
        floor = max(
            (
                RECORD_ROUNDS
                * (c.market.n_platforms + len(c.market.entrants))
                * c.market.memory_window
                / 2
                for c in full
            ),
            default=0.0,
        )
        plain = cls(scale, breadth_first, spec_seeds, floor, spec_seeds, None, shared)
        if not breadth_first:
            return plain
        breadth = min(
            max(1, math.floor(round(plain._paid(c) / plain._kept_rounds(c), 6))) for c in full
        )
        seeds = min(spec_seeds, breadth)
        if any(own_memory(c) and memory_unit(c) == "domain" for c in full):
            seeds = max(seeds, min(spec_seeds, DOMAIN_WIDE_SEEDS))  # the docstring says why
        fewest = min(c.episodes.users_per_profile for c in full)
        # a profile's memory (Style-6) is one user's when a profile keeps one user, and the
        # scope experiment would set one design against itself: keep two where there were
        shared_by_profile = any(memory_unit(c) == "profile" for c in full)
        users = max(min(fewest, 2 if shared_by_profile else 1), min(fewest, breadth // seeds))
        return cls(scale, breadth_first, spec_seeds, floor, seeds, users, shared)

    def _rounds(self, config: RunConfig) -> float:
        return config.episodes.requests / (len(PROFILE_NAMES) * config.episodes.users_per_profile)

    def _paid(self, config: RunConfig) -> float:
        """User-rounds a profile the scale pays for in one domain, over every seed."""
        return (
            self.scale
            * self.spec_seeds
            * config.episodes.users_per_profile
            * (self._rounds(config))
        )

    def _kept_rounds(self, config: RunConfig) -> float:
        rounds = self._rounds(config)
        return min(rounds, max(self._paid(config), rounds / 2, self.floor_rounds))

    def cuts(self, config: RunConfig) -> tuple[str, ...]:
        """The schedules ``config``'s cell is played on: ROUNDS (breadth first), EPISODES,
        or both for a cell without memory beside both kinds of memory."""
        if not self.breadth_first:
            return (EPISODES,)
        if own_memory(config):
            return (ROUNDS,)
        if memory_unit(config) == "domain":
            return (EPISODES,)
        return (ROUNDS, EPISODES) if self.shared_memory else (ROUNDS,)

    def seeds_of(self, cut: str) -> int:
        """The replicates a cut keeps (the spec's first ones)."""
        return self.seeds if cut == ROUNDS else self.spec_seeds

    def users_of(self, config: RunConfig, cut: str = ROUNDS) -> int:
        """The simulated users a profile that ``config`` (at full scale) keeps."""
        return (self.users if cut == ROUNDS else None) or config.episodes.users_per_profile

    def requests(self, config: RunConfig, cut: str = ROUNDS) -> int:
        """The episodes per domain that ``config`` (at full scale) keeps under ``cut``."""
        if not self.breadth_first or cut == EPISODES:
            return max(MIN_REQUESTS, round(config.episodes.requests * self.scale))
        rounds = math.ceil(round(self._kept_rounds(config), 6))
        return max(MIN_REQUESTS, rounds * len(PROFILE_NAMES) * self.users_of(config))

    def said(self) -> str:
        """What the scale cut, in a phrase."""
        if self.scale >= 1:
            return "nothing cut"
        if self.breadth_first:
            return (
                f"cut to {self.seeds} of {self.spec_seeds} seeds and {self.users} simulated "
                "user(s) a profile before rounds: users remember, so each keeps at least half "
                "its rounds"
                + (
                    f"; a memory shared by a domain keeps every seed, cut to {self.scale:g} "
                    "of its episodes, with a copy of each cell without memory beside it"
                    if self.shared_memory
                    else ""
                )
            )
        return f"cut to {self.scale:g} of each cell's episodes at every seed"
