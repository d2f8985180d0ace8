"""How the attacking seats that react, or draw, choose their presentation, name and
presence, proposal by proposal (``PlatformStrategy``): bait-and-switch, whitewash and
camouflage. ``recmarket.catalogue.attacks`` says what each attack assumes."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from recmarket.catalogue.attack_params import BaitParams, CamouflageParams, WhitewashParams
from recmarket.catalogue.strategies import Arm, Steady


class Recent:
    """A platform's rewards over its last ``window`` proposals."""

    def __init__(self, window: int) -> None:
        self.rewards: deque[float] = deque(maxlen=window)

    def add(self, reward: float) -> None:
        """Count one proposal's reward."""
        self.rewards.append(reward)

    @property
    def full(self) -> bool:
        """Whether the window holds ``window`` rewards."""
        return len(self.rewards) == self.rewards.maxlen

    def below(self, level: float) -> bool:
        """Whether a full window averages below ``level``."""
        return self.full and float(np.mean(self.rewards)) < level

    def clear(self) -> None:
        """Forget every reward (a fresh start after a switch or a re-entry)."""
        self.rewards.clear()


@dataclass
class BaitAndSwitch:
    """A bait-and-switch seat's conduct: the honest policy, then the other once triggered
    (and back and forth under ``oscillate``)."""

    params: BaitParams
    adaptive: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.switched, self.triggered, self.rewarded = False, False, 0
        self.recent = Recent(self.params.window)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return Arm(self.params.then if self.switched else self.params.honest)

    def observe(self, arm: str, reward: float) -> None:
        self.rewarded += reward > 0
        self.recent.add(reward)

    def period_ended(self, next_order: int) -> None:
        p = self.params
        if not self.triggered:
            by_round = p.switch_round is not None and next_order >= p.switch_round
            by_reward = p.switch_after is not None and self.rewarded >= p.switch_after
            self.triggered = self.switched = by_round or by_reward
            if self.switched:
                self.recent.clear()
        elif (
            p.oscillate
            and self.switched == self.recent.below(p.below)
            and (self.switched or self.recent.full)
        ):
            # caught (switched, reward low): honest again; recovered (honest, a full
            # window at or above the level): switch back
            self.switched = not self.switched
            self.recent.clear()

    def identity(self, seat: str) -> str:
        return seat

    def present(self, order: int) -> bool:
        return True


@dataclass
class Whitewash:
    """A whitewashing seat's conduct: one policy, and a fresh identity each time its recent
    reward falls below the level."""

    params: WhitewashParams
    policy: str
    adaptive: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.generation, self.absent_until = 0, 0
        self.recent = Recent(self.params.window)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return Arm(self.policy)

    def observe(self, arm: str, reward: float) -> None:
        self.recent.add(reward)

    def period_ended(self, next_order: int) -> None:
        p = self.params
        if self.generation < p.reentries and self.recent.below(p.below):
            self.generation += 1
            self.absent_until = next_order + p.absent_rounds
            self.recent.clear()

    def identity(self, seat: str) -> str:
        return seat if self.generation == 0 else f"{seat}-{self.generation + 1}"

    def present(self, order: int) -> bool:
        return order >= self.absent_until


@dataclass(frozen=True)
class Camouflage(Steady):
    """A camouflaging seat's conduct: its honest policy, and the other for a share of its
    proposals, each by the episode's keyed draw for the seat."""

    params: CamouflageParams
    adaptive: bool = field(default=False, init=False)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        p = self.params
        if p.share <= 0.0:  # draws nothing: the honest seat's records exactly
            return Arm(p.honest)
        return Arm(p.then if draw().random() < p.share else p.honest)

    def observe(self, arm: str, reward: float) -> None:
        raise RuntimeError("a camouflaging platform is told no lessons")
