"""Reputation mechanisms (issue 12) as objects in a registry: how a memory keeps a
platform's claim-reliability records and how it shows them to the user agent.

``window`` keeps the W most recent records, shown as they are (the paper's Tail_W);
``beta`` keeps every record, so the reader's prior and the number of records decide how
sure it is (few records read as little evidence, not as bad evidence); ``decay`` keeps every
record that still counts, each weighted ``decay`` to the power of the number of newer
records, so a platform whose claims improve recovers. Another package adds one under the
``recmarket.reputation`` entry-point group; the memory, the prompts and the settings ask the
registry by name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator

from recmarket.registry import Registry

FORGOTTEN = 1e-3  # under decay, a record weighing less than this is dropped


@dataclass(frozen=True)
class ReputationMechanism:
    """How records are kept (``kept``) and weighed when shown (``weights``).

    ``evidence_header`` is what an LLM user agent is told about the records' weights before
    a summary of each platform's evidence; None for a mechanism whose records speak for
    themselves (the paper's window), whose shortlist inputs then name no mechanism, as in
    the paper's runs."""

    name: str
    evidence_header: str | None = None

    def kept(self, window: int, decay: float) -> int | None:
        """Records kept per platform (None: every record)."""
        raise NotImplementedError

    def weights(self, count: int, decay: float) -> tuple[float, ...] | None:
        """The weight of each of ``count`` records, oldest first, as the reader counts
        them; None: each counts fully and is shown as it is."""
        return None


@dataclass(frozen=True)
class Window(ReputationMechanism):
    def kept(self, window: int, decay: float) -> int | None:
        return window


@dataclass(frozen=True)
class EveryRecord(ReputationMechanism):
    def kept(self, window: int, decay: float) -> int | None:
        return None


@dataclass(frozen=True)
class Decay(ReputationMechanism):
    def kept(self, window: int, decay: float) -> int | None:
        return math.ceil(math.log(FORGOTTEN) / math.log(decay))

    def weights(self, count: int, decay: float) -> tuple[float, ...] | None:
        newest = count - 1
        return tuple(decay ** (newest - i) for i in range(count))


MECHANISMS: Registry[ReputationMechanism] = Registry(
    "reputation mechanism", "recmarket.reputation", ReputationMechanism, lambda m: m.name
)
WINDOW = MECHANISMS.register(Window("window"))
BETA = MECHANISMS.register(EveryRecord("beta", "every record counts alike"))
DECAY = MECHANISMS.register(
    Decay("decay", "a record counts by its weight: older records count less")
)


def mechanism(name: str) -> ReputationMechanism:
    """The registered mechanism of this name; an unknown name fails with the known ones."""
    return MECHANISMS.get(name)


# A mechanism name in a contract or a setting: any registered mechanism, stored as its name.
MechanismName = Annotated[str, AfterValidator(MECHANISMS.known)]
