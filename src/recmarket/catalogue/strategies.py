"""How each platform chooses the presentation of its proposals: its strategy.

Every seat of a market has a ``PlatformStrategy``. A *fixed* platform keeps the policy its
composition gave it (the paper's platforms); an *adaptive* one chooses an arm
before every proposal with a learning rule and is told the fate of the arms it played.

An arm is a presentation policy and, for the offline platform, a claim intensity within it
(how far Strict shades or Exaggeration lifts a claim from the platform's reading; Balanced
claims its reading, so it has one arm).

A platform observes nothing but its own proposals' fate (shortlisted, ranked first,
bought), so a presentation that reacts, rule-based ones included, is a function of its own
(arm, reward) history and its draws, which is what a learning rule is (``learning``). A
seat that plays against the records themselves (its name, its records, its seats) plays
an attack (``attacks``), which builds a ``PlatformStrategy`` of its own. Both kinds are
registered (``PLATFORM_STRATEGIES``), and code asks a strategy whether it is adaptive, never
which kind it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Protocol

import numpy as np
from pydantic import BaseModel

from recmarket.catalogue.learning import Learner, LearningSetting, learner
from recmarket.catalogue.policies import PAPER_POLICIES, policy
from recmarket.catalogue.registry import NameIn, NoParams, Registry


@dataclass(frozen=True)
class Arm:
    """What an adaptive platform chooses for a proposal: a policy, at a claim intensity (1:
    the calibrated distance from its reading)."""

    policy: str
    intensity: float = 1.0

    @property
    def name(self) -> str:
        """``strict``, or ``strict:0.5`` at another intensity than the calibrated one."""
        return self.policy if self.intensity == 1.0 else f"{self.policy}:{self.intensity:g}"


def arms(intensities: tuple[float, ...]) -> tuple[Arm, ...]:
    """The paper's three policies, each at every intensity where its claim rule varies
    with intensity (Balanced claims its reading: one arm). Installed policies are not
    arms: installing a package must not change what an adaptive platform can choose."""
    return tuple(
        Arm(name, intensity)
        for name in PAPER_POLICIES
        for intensity in (intensities if policy(name).claim.varies else (1.0,))
    )


def policy_of(arm_name: str) -> str:
    """The policy of an arm's name (``strict:0.5`` -> ``strict``)."""
    return arm_name.split(":")[0]


class PlatformStrategy(Protocol):
    """One platform's conduct, proposal by proposal: its presentation, and (for a
    seat that plays an attack against the records, ``market.attacks``) the name it shows and
    whether it proposes at all.

    ``adaptive`` says whether the conduct can change with what the platform has seen: an
    adaptive platform's choices are recorded with the episode, it is told each episode's
    lesson (``observe``) and the end of each learning period (``period_ended``), and it
    chooses only once the learning periods before its request's have been applied."""

    @property
    def adaptive(self) -> bool:
        """Whether the conduct can change with what the platform has seen."""
        ...

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        """The presentation of the next proposal.

        Args: ``draw`` gives the episode's keyed generator for this platform (call it only
        to draw: a strategy that draws nothing costs nothing). Returns: an ``Arm``.
        Raises: nothing."""
        ...

    def observe(self, arm: str, reward: float) -> None:
        """Learn that a proposal presented as ``arm`` earned ``reward`` in [0, 1]."""
        ...

    def period_ended(self, next_order: int) -> None:
        """Every lesson before round ``next_order`` has been observed."""
        ...

    def identity(self, seat: str) -> str:
        """The name the platform in ``seat`` shows now (``seat`` itself unless it re-entered
        the market under another)."""
        ...

    def present(self, order: int) -> bool:
        """Whether it proposes in round ``order`` (0-based)."""
        ...


class Steady:
    """The conduct of a platform that keeps its name and proposes in every round."""

    def period_ended(self, next_order: int) -> None:
        """Nothing to do: a steady conduct learns nothing."""
        pass

    def identity(self, seat: str) -> str:
        """The seat's own name, always."""
        return seat

    def present(self, order: int) -> bool:
        """Present in every round."""
        return True


@dataclass(frozen=True)
class FixedPresentation(Steady):
    """Presents every proposal under one policy, at the market's claim intensity."""

    arm: Arm
    adaptive: bool = field(default=False, init=False)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return self.arm

    def observe(self, arm: str, reward: float) -> None:
        raise RuntimeError(f"a fixed platform ({self.arm.name}) is told no lessons")


@dataclass
class LearnedPresentation(Steady):
    """Chooses among ``arms`` with a learner, which is told the reward of each arm played."""

    arms: Sequence[Arm]
    learner: Learner
    adaptive: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.index = {arm.name: i for i, arm in enumerate(self.arms)}

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return self.arms[self.learner.choose(draw())]

    def observe(self, arm: str, reward: float) -> None:
        self.learner.update(self.index[arm], reward)


@dataclass(frozen=True)
class StrategyKind:
    """A value of ``market.platform_strategy`` (or of an entrant): whether its seats adapt,
    and how a seat's strategy is made from the seat's policy (its composition's, or an
    entrant's; None for an adaptive entrant), the market's claim intensities and its
    learning rule."""

    name: str
    adaptive: bool
    make: Callable[[str | None, tuple[float, ...], LearningSetting], PlatformStrategy]
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none


def _fixed(
    seat_policy: str | None, intensities: tuple[float, ...], learning: LearningSetting
) -> PlatformStrategy:
    if seat_policy is None:
        raise ValueError("a fixed platform needs a presentation policy")
    return FixedPresentation(Arm(seat_policy, intensities[0]))


def _learned(
    seat_policy: str | None, intensities: tuple[float, ...], learning: LearningSetting
) -> PlatformStrategy:
    choices = arms(intensities)
    return LearnedPresentation(choices, learner(learning, [a.name for a in choices]))


def probe(kind: StrategyKind, params: object) -> None:
    """The contract, checked when a run names the kind: a strategy made for a Strict seat
    that chooses an ``Arm``, adaptive exactly when the kind says so."""
    made = kind.make("strict", (1.0,), LearningSetting(rule="thompson"))
    arm = made.choose(lambda: np.random.default_rng(0))
    if not isinstance(arm, Arm):
        raise ValueError(f"its strategy chose {arm!r}, not an Arm")
    if bool(made.adaptive) != kind.adaptive:
        raise ValueError(f"it says adaptive={kind.adaptive}, its strategy {made.adaptive}")


PLATFORM_STRATEGIES: Registry[StrategyKind] = Registry(
    "platform strategy",
    "recmarket.platform_strategies",
    StrategyKind,
    lambda k: k.name,
    probe,
)
PLATFORM_STRATEGIES.register(StrategyKind("fixed", False, _fixed))
PLATFORM_STRATEGIES.register(StrategyKind("adaptive", True, _learned))

# A platform strategy's name in a setting: any registered one.
StrategyName = Annotated[str, NameIn(PLATFORM_STRATEGIES, probed=True)]


def strategy_kind(name: str) -> StrategyKind:
    """The kind of this name (settings have validated it); an unknown one fails with the
    known ones."""
    return PLATFORM_STRATEGIES.get(name)
