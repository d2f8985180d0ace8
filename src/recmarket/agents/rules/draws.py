"""One generator per offline role, re-keyed by each call's seed.

``numpy.random.default_rng(seed)`` spends most of its ~9 us mixing the seed through a
SeedSequence; the call seed is already a uniform 63-bit hash of (run seed, domain, purpose,
episode, unit), so its bits only need spreading over PCG64's 128-bit state and odd
increment (splitmix64 does that) and the role's one bit generator is reset to it, in about
a microsecond. The reset is safe because an offline role never awaits between taking its
generator and its last draw: calls of one role cannot interleave.
"""

from __future__ import annotations

import numpy as np

_MASK = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


class Draws:
    def __init__(self) -> None:
        self._bits = np.random.PCG64(0)
        self._generator = np.random.Generator(self._bits)

    def __call__(self, seed: int) -> np.random.Generator:
        """The generator for one call, in the same state whenever the seed is the same."""
        a, b, c = (_splitmix64(seed + k) for k in range(3))
        self._bits.state = {
            "bit_generator": "PCG64",
            "state": {"state": (a << 64) | b, "inc": (c << 1) | 1},
            "has_uint32": 0,
            "uinteger": 0,
        }
        return self._generator
