"""Named, seeded random streams.

Every random draw in recmarket comes from a generator keyed by (seed, domain, unit,
purpose). Keying by purpose rather than by call order means that two treatment cells which
share requests, catalogs and retrieval draw exactly the same numbers for them (common random
numbers), that reruns are identical, and that work split across processes or machines gives
the same records as a single process.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence
from enum import IntEnum
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


class Stream(IntEnum):
    """The purposes a draw can serve. Values are part of the reproducibility contract:
    never renumber an existing member, only append."""

    EPISODE_SAMPLING = 1
    CATALOG_ASSIGNMENT = 2
    CATALOG_CAP = 3
    RETRIEVAL = 4
    PLATFORM_ENTRY = 5
    FORCED_INCLUSION = 6
    DEMO_DATA = 7
    RETRIEVAL_EXTENSION = 8
    QUERY = 9
    NEED = 10
    EXPLAIN = 11
    SHUFFLE = 12
    SHORTLIST = 13
    DECIDE = 14
    REVIEW = 15
    UPDATE = 16
    STRATEGY = 17  # an adaptive platform's choice of presentation
    ENTRANT_CATALOG = 18
    ENTRANT_RETRIEVAL = 19
    ENTRANT_INCLUSION = 20
    AUDIT = 21  # a model audit's probe trials (agents/llm/audit)
    FORGE = 22  # whether a forging platform writes fake records after an episode
    PILOT = 23  # which of a study's units a pilot backend plays (run/pilot_units.py)
    VALIDATION = 24  # a person's negatives in the held-out protocol (validity/heldout.py)
    BASELINE = 25  # a trained baseline's fit on the held-out protocol (validity/sequential.py)
    ATTACK_SEARCH = 26  # an attack search's sampler, trial by trial (study/attack_search.py)
    COPY = 27  # a copywriter's call: a seat's listing rewritten (market/listings.py)


@lru_cache(maxsize=256)
def domain_key(domain: str) -> int:
    """A stable integer for a domain name (Python's hash() is salted per process)."""
    return zlib.crc32(domain.encode("utf-8"))


def rng(seed: int, domain: str, stream: Stream, *unit: int) -> np.random.Generator:
    """The generator for one purpose within one domain, optionally for one unit (an episode)."""
    return np.random.default_rng([seed, domain_key(domain), int(stream), *unit])


def call_seed(seed: int, domain: str, stream: Stream, *unit: int) -> int:
    """A 63-bit seed for one role call, for backends that draw their own numbers: a keyed
    hash of the same (seed, domain, purpose, unit) key, cheaper than a SeedSequence."""
    key = (seed, domain_key(domain), int(stream), *unit)
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


class Draws:
    """One generator for a role backend, re-keyed by each call's seed.

    ``numpy.random.default_rng(seed)`` spends most of its ~9 us mixing the seed through a
    SeedSequence; a call seed is already a uniform 63-bit hash of (run seed, domain,
    purpose, episode, unit), so its bits only need spreading over PCG64's 128-bit state and
    odd increment (one 24-byte BLAKE2b digest of it does that, in half a microsecond, where
    three rounds of splitmix64 in Python took two) and the one bit generator is reset to
    it, in about two microseconds in all. The reset is safe for a user that never awaits
    between taking the generator and its last draw (an offline role, an adaptive
    platform's choice): its calls cannot interleave."""

    def __init__(self) -> None:
        self._bits = np.random.PCG64(0)
        self._generator = np.random.Generator(self._bits)
        self._key = {"state": 0, "inc": 1}  # re-filled for each call, the rest as it is
        self._state: Any = {
            "bit_generator": "PCG64",
            "state": self._key,
            "has_uint32": 0,
            "uinteger": 0,
        }

    def __call__(self, seed: int) -> np.random.Generator:
        """The generator for one call, in the same state whenever the seed is the same."""
        digest = hashlib.blake2b(seed.to_bytes(8, "little"), digest_size=24).digest()
        self._key["state"] = int.from_bytes(digest[:16], "little")
        self._key["inc"] = int.from_bytes(digest[16:], "little") << 1 | 1
        self._bits.state = self._state
        return self._generator


_BRIEF = Draws()


def brief(seed: int, domain: str, stream: Stream, *unit: int) -> np.random.Generator:
    """The generator for one purpose, as ``rng`` keys it, for a use that takes all its draws
    at once (an episode's retrieval draws, its shuffle): keyed by ``call_seed``'s hash and
    served by one shared bit generator re-keyed in place (``Draws``), it costs about 4 us
    where ``rng`` costs 10, paid several times an episode. recmarket draws in one thread, and
    a brief generator is never held past the next ``brief`` call."""
    return _BRIEF(call_seed(seed, domain, stream, *unit))


def one_of(gen: np.random.Generator, options: Sequence[T]) -> T:
    """One of the options, equally likely, from one uniform of ``gen``: ``integers`` spends
    about a microsecond on its arguments, a uniform a third of that, and the offline roles
    pick a phrasing a dozen times an episode (floor(u * n), even to 1e-16 for a few
    options)."""
    return options[int(gen.random() * len(options))]
