"""Where a run's time goes, phase by phase, summed over the processes that ran it.

Workers time their own phases (loading a domain, embedding, playing episodes) and send the
seconds with their results; the driver adds its own (planning, store writes) and the
reproduce benchmark derives the serial share and the speed-up it predicts from them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Phases:
    """Seconds spent per phase of a run, summed across workers."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Time the block as ``phase``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(phase, time.perf_counter() - start)

    def add(self, phase: str, seconds: float) -> None:
        """Add seconds to a phase."""
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    def merge(self, other: Phases) -> None:
        """Add another's phases (a worker's) to these."""
        for phase, seconds in other.seconds.items():
            self.add(phase, seconds)

    def total(self) -> float:
        """Seconds in every phase."""
        return sum(self.seconds.values())
