"""The on-off attack as a recmarket attack: a seat that exaggerates in bursts of
``on_rounds`` rounds and presents honestly for ``off_rounds`` between them, starting honest.

An attacker who knows that records age out spends its reputation in short bursts and lets
it recover in between; a mechanism that forgets faster than the cycle turns never catches
it. The schedule is fixed in advance: the seat sees no reward, only the round a learning
period ends at, so it switches at period ends (``market.learning_period``), as every
adaptive choice does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recmarket.api import Arm, Attack, PlatformStrategy, PolicyName


class OnOffParams(BaseModel):
    """The two presentations and how many rounds each lasts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    on: PolicyName = Field("exaggeration", description="the presentation of a burst")
    off: PolicyName = Field("strict", description="the presentation between bursts")
    on_rounds: int = Field(12, ge=1, description="rounds a burst lasts")
    off_rounds: int = Field(12, ge=1, description="rounds between bursts (it starts with them)")


@dataclass
class OnOff:
    """One seat's conduct: the burst's policy while the current round falls in a burst."""

    params: OnOffParams
    adaptive: bool = field(default=True, init=False)  # told when each period ends
    round: int = field(default=0, init=False)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        """The burst's policy inside a burst, the other between bursts; draws nothing."""
        p = self.params
        in_burst = self.round % (p.on_rounds + p.off_rounds) >= p.off_rounds
        return Arm(p.on if in_burst else p.off)

    def observe(self, arm: str, reward: float) -> None:
        """Rewards do not move a fixed schedule."""

    def period_ended(self, next_order: int) -> None:
        """The next proposals are of round ``next_order`` on."""
        self.round = next_order

    def identity(self, seat: str) -> str:
        """It keeps its seat's name."""
        return seat

    def present(self, order: int) -> bool:
        """It proposes in every round."""
        return True


@dataclass(frozen=True)
class OnOffAttack(Attack):
    """The on-off attack, registered under ``recmarket.attacks``."""

    Params: type[BaseModel] = OnOffParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        """A fresh schedule at round 0 (the seat's composition policy is not used)."""
        return OnOff(params)


ON_OFF = OnOffAttack("on-off", adaptive=True)
